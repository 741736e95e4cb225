/**
 * The documentation site (VitePress). Built by `npm run docs:build` into docs/.vitepress/dist, and
 * usable offline: local search, no web font, no analytics, nothing in `head` that leaves the site.
 * The API reference under /api/ is TypeDoc's markdown (typedoc.site.json), generated before the build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';

const GUIDE: DefaultTheme.SidebarItem[] = [
  {
    text: 'Introduction',
    items: [
      { text: 'Getting started', link: '/guide/getting-started' },
      { text: 'Backoff', link: '/guide/backoff' },
      { text: 'Reconnection and states', link: '/guide/reconnection' },
      { text: 'Sending and the buffer', link: '/guide/sending' },
      { text: 'Events and errors', link: '/guide/events-and-errors' },
    ],
  },
  {
    text: 'Entries',
    items: [
      { text: 'The drop-in WebSocket', link: '/guide/drop-in' },
      { text: 'React', link: '/guide/react' },
      { text: 'Vue', link: '/guide/vue' },
      { text: 'Tabs (SharedSocket)', link: '/guide/tabs' },
      { text: 'Acknowledged delivery', link: '/guide/delivery' },
      { text: 'The delivery protocol', link: '/guide/protocol' },
      { text: 'Several processes on Redis', link: '/guide/cluster' },
    ],
  },
  {
    text: 'In production',
    items: [
      { text: 'Page lifecycle and back-pressure', link: '/guide/page-lifecycle' },
      { text: 'The herd after an outage', link: '/guide/herd' },
      { text: 'Reliability: the fault matrix', link: '/guide/reliability' },
      { text: 'Testing your reconnect logic', link: '/guide/testing' },
      { text: 'Runtimes: Node, Bun, Deno', link: '/guide/runtimes' },
      { text: 'The CLI', link: '/guide/cli' },
      { text: 'Builds and size', link: '/guide/builds-and-size' },
      { text: 'Architecture', link: '/guide/architecture' },
    ],
  },
  { text: 'Playground', items: [{ text: 'Backoff playground', link: '/playground' }] },
];

const MIGRATE: DefaultTheme.SidebarItem[] = [
  {
    text: 'Migrating from',
    items: [
      { text: 'reconnecting-websocket', link: '/migrate/reconnecting-websocket' },
      { text: 'partysocket', link: '/migrate/partysocket' },
      { text: 'react-use-websocket', link: '/migrate/react-use-websocket' },
      { text: 'VueUse useWebSocket', link: '/migrate/vueuse' },
    ],
  },
];

/**
 * The reference's sidebar: the main entry (TypeDoc's `index` module, the reference's home page) and
 * the other entries, as typedoc-vitepress-theme lists them next to the pages it writes (one page
 * per entry). Without the generated reference (`npm run docs:api`), only its home link.
 */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));
  const entries = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[]) : [];
  return [
    {
      text: 'API reference',
      items: [
        { text: 'resilient-socket', link: '/api/' },
        ...entries.map((item) => ({ ...item, text: `resilient-socket/${item.text}` })),
      ],
    },
  ];
}

export default defineConfig({
  title: 'resilient-socket',
  description:
    'A reconnecting WebSocket client for browsers and Node: truncated binary exponential backoff, a bounded outbound buffer, dead-link detection.',
  lang: 'en-US',
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  // Partials (`_name.md`) are included by pages, not pages themselves.
  srcExclude: ['**/_*.md'],
  ignoreDeadLinks: false,
  lastUpdated: false,
  themeConfig: {
    logo: '/favicon.svg',
    nav: [
      { text: 'Guide', link: '/guide/getting-started', activeMatch: '/guide/' },
      { text: 'Migrate', link: '/migrate/reconnecting-websocket', activeMatch: '/migrate/' },
      { text: 'API', link: '/api/', activeMatch: '/api/' },
      { text: 'Playground', link: '/playground' },
    ],
    sidebar: {
      '/guide/': GUIDE,
      '/playground': GUIDE,
      '/migrate/': MIGRATE,
      '/api/': apiSidebar(),
    },
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
  vite: {
    // The local search index holds the whole text of the site, the reference included (about 750 kB,
    // 140 kB gzipped): one chunk, loaded when the search box opens.
    build: { chunkSizeWarningLimit: 1024 },
  },
});
