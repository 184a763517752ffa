import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Every page lives under /console/; the server answers index.html for any of them. */
export const BASE = '/console';

export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

export function navigate(path: string): void {
  history.pushState(null, '', BASE + path);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const changed = () => setPath(currentPath());
    addEventListener('popstate', changed);
    return () => removeEventListener('popstate', changed);
  }, []);
  return path;
}

/** A real link (middle-click, copy address work), routed in the page on a plain click. */
export function Link({ to, children, current, class: className, title }: { to: string; children: ComponentChildren; current?: boolean; class?: string; title?: string }) {
  return (
    <a
      href={BASE + to}
      class={className}
      title={title}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
