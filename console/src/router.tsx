import { createContext, MouseEvent, ReactNode, useContext, useEffect, useState } from 'react';

/** The location the app renders: path and query, kept in the URL so every view is a link. */
export interface Location {
  path: string;
  search: URLSearchParams;
}

const read = (): Location => ({ path: window.location.pathname, search: new URLSearchParams(window.location.search) });
const LocationContext = createContext<Location>(read());

export function navigate(to: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return <LocationContext.Provider value={location}>{children}</LocationContext.Provider>;
}

export const useLocation = () => useContext(LocationContext);

/** A real link (new tab, copy address work); a plain click stays in the app. */
export function Link({
  to,
  children,
  className,
  ariaCurrent,
  label,
}: {
  to: string;
  children: ReactNode;
  className?: string;
  ariaCurrent?: boolean;
  /** An accessible name where the visible text alone would not say where the link goes (a count). */
  label?: string;
}) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a
      href={to}
      onClick={onClick}
      className={className}
      aria-current={ariaCurrent ? 'page' : undefined}
      aria-label={label}
    >
      {children}
    </a>
  );
}
