/** Vite bundles imported stylesheets; to TypeScript they are side-effect modules. */
declare module '*.css';
