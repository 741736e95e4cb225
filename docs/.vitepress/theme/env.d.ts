// Lets TypeScript (npm run typecheck) import the theme's single-file components.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';

  const component: DefineComponent;
  export default component;
}
