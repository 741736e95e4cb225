import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import BackoffPlayground from './components/BackoffPlayground.vue';

/** The default theme plus the playground component, available to every page as `<BackoffPlayground />`. */
export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('BackoffPlayground', BackoffPlayground);
  },
} satisfies Theme;
