import { createContext, ReactNode, useContext, useEffect, useState } from 'react';
import { MESSAGE_MODULES } from './messages';
import type { LAZY_MESSAGE_MODULES } from './messages/lazy';

const MODULES = Object.values(MESSAGE_MODULES);
// Distributes over the modules, so a key of any module is a key.
type KeysOf<M> = M extends { en: infer E } ? keyof E : never;
// The keys of the messages page chunks bring (see `addMessages`), typed here without their text.
type Key = KeysOf<(typeof MODULES)[number]> | KeysOf<(typeof LAZY_MESSAGE_MODULES)[keyof typeof LAZY_MESSAGE_MODULES]>;

export type Lang = 'en' | 'ru';
export type MessageKey = Key;
const DICTS = {
  en: Object.assign({}, ...MODULES.map((m) => m.en)) as Record<Key, string>,
  ru: Object.assign({}, ...MODULES.map((m) => m.ru)) as Record<Key, string>,
};
const STORAGE_KEY = 'bulwark.lang';

/**
 * Adds the messages a page chunk brings: they stay out of the entry script, which has a size budget
 * (gateway compression suite). The chunk adds them when it loads, before any of its pages renders.
 */
export function addMessages(m: { en: Record<string, string>; ru: Record<string, string> }): void {
  Object.assign(DICTS.en, m.en);
  Object.assign(DICTS.ru, m.ru);
}

export interface I18n {
  lang: Lang;
  setLang: (lang: Lang) => void;
  t: (key: Key, ...args: (string | number)[]) => string;
}

const I18nContext = createContext<I18n | null>(null);

const initial = (): Lang => {
  const stored = window.localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'ru') return stored;
  return navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
};

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initial);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  const setLang = (next: Lang) => {
    window.localStorage.setItem(STORAGE_KEY, next);
    setLangState(next);
  };
  const t = (key: Key, ...args: (string | number)[]) =>
    DICTS[lang][key].replace(/\{(\d)\}/g, (_m, i: string) => String(args[Number(i)] ?? ''));
  return <I18nContext.Provider value={{ lang, setLang, t }}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error('useI18n outside I18nProvider');
  return ctx;
}

// One formatter per language: making one costs far more than formatting with it, and a list formats every row.
const DATE_FORMATS: Record<Lang, Intl.DateTimeFormat> = {
  en: new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }),
  ru: new Intl.DateTimeFormat('ru-RU', { dateStyle: 'medium', timeStyle: 'short' }),
};

/** Dates in the reader's language, to the minute. */
export const formatDate = (lang: Lang, iso: string | null) => (iso ? DATE_FORMATS[lang].format(new Date(iso)) : '—');
