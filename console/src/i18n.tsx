import { createContext, ReactNode, useContext, useEffect, useState } from 'react';

const en = {
  appName: 'Bulwark', skip: 'Skip to content', language: 'Language', signOut: 'Sign out', signedInAs: 'Signed in as {0}',
  navDashboard: 'Dashboard', navIssues: 'Issues', navProjects: 'Projects', navReports: 'Reports', mainNav: 'Main',
  signIn: 'Sign in', username: 'Username', password: 'Password', signingIn: 'Signing in…', directoryHint: 'Directory (LDAP) accounts sign in here too.',
  changePassword: 'Change your password', changePasswordWhy: 'Your password must be changed before you go on.', currentPassword: 'Current password',
  newPassword: 'New password', passwordChanged: 'Password changed. Sign in with the new one.', confirmPassword: 'Repeat the new password', save: 'Save',
  loading: 'Loading…', error: 'Something went wrong: {0}', none: 'Nothing here yet.',
  issues: 'Issues', search: 'Search titles', searchLabel: 'Search', filters: 'Filters', addFilter: 'Add a filter', filterField: 'Filter', filterValue: 'Value', add: 'Add',
  removeFilter: 'Remove filter {0}', clearFilters: 'Clear all', sort: 'Sort', sortNewest: 'Newest first', sortOldest: 'Oldest first',
  sortSeverity: 'Most severe first', sortCvss: 'Highest CVSS first', sortLastSeen: 'Last detected first', sortStatus: 'By status',
  total: '{0} issues', nextPage: 'Next page', firstPage: 'First page', selectAll: 'Select every issue on this page', select: 'Select {0}',
  selected: '{0} selected', changeStatus: 'Change status', newStatus: 'New status', comment: 'Comment', apply: 'Apply',
  changed: '{0} changed, {1} not changed', title: 'Title', severity: 'Severity', status: 'Status', project: 'Project', tool: 'Tool',
  location: 'Location', detected: 'First detected', lastDetected: 'Last detected', description: 'Description', occurrences: 'Occurrences',
  detections: 'Detections', history: 'History', back: 'Back to issues', cve: 'CVE', cwe: 'CWE', library: 'Library', assignee: 'Assignee',
  category: 'Category', rule: 'Rule', actor: 'By', field: 'Field', from: 'From', to: 'To', when: 'When', copyLink: 'This view is a link: copy the address to save it.',
  f_project_code: 'Project', f_severity: 'Severity', f_status: 'Status', f_tool: 'Tool', f_category: 'Category', f_cve: 'CVE', f_cwe: 'CWE',
  f_assignee: 'Assignee', f_lib_name: 'Library', f_layer: 'Layer id', f_check: 'Check id', f_scan: 'Scan id', f_exploitability: 'Exploitability',
  f_cvss_min: 'CVSS at least', f_cvss_max: 'CVSS at most', f_epss_min: 'EPSS at least', f_detected_at_start: 'Detected from', f_detected_at_end: 'Detected until',
  f_exclude_duplicates: 'Hide duplicates', f_filter_inversion: 'Invert filters', f_search_file_path: 'Path contains', f_search_rule_id: 'Rule contains',
  f_search_cve: 'CVE contains', f_search_lib_name: 'Library contains', f_comment_message: 'Comment contains',
  dashboard: 'Dashboard', openBySeverity: 'Open issues by severity', openByStatus: 'Issues by status', latestScans: 'Latest scans', gate: 'Gate',
  passed: 'passed', failed: 'failed', locked: 'locked', noVerdict: 'no verdict', scanState: 'State', findings: 'Findings', created: 'Created', check: 'Check',
  projects: 'Projects', newProject: 'New project', code: 'Code', name: 'Name', tags: 'Tags (comma separated)', create: 'Create', layers: 'Layers',
  newLayer: 'New layer', layerType: 'Layer type', run: 'Run', runQueued: 'Scan queued', scanHistory: 'Scan history', lastScan: 'Last scan',
  newIssues: 'New', fixed: 'Fixed',
  newCheck: 'New check', source: 'Source', branch: 'Branch', scanning: 'Scanning: {0}%',
  reports: 'Reports', newReport: 'New report', period: 'Period', projectsOptional: 'Project codes (comma separated, empty: all)',
  state: 'State', progress: 'Progress', download: 'Download', downloadAs: 'Download {0} as {1}',
  p_all: 'All time', p_day: 'Last day', p_week: 'Last week', p_month: 'Last month', p_quarter: 'Last quarter', p_year: 'Last year',
  p_custom: 'From – to', rangeFrom: 'From', rangeTo: 'To', reportType: 'Type',
  rt_summary: 'Summary', rt_detailed: 'Detailed', rt_compliance: 'Compliance (OWASP Top 10, CWE Top 25)', rt_trend: 'Trend',
  sev_critical: 'Critical', sev_high: 'High', sev_medium: 'Medium', sev_low: 'Low', sev_info: 'Info',
};

type Key = keyof typeof en;

const ru: Record<Key, string> = {
  appName: 'Bulwark', skip: 'К содержимому', language: 'Язык', signOut: 'Выйти', signedInAs: 'Вы вошли как {0}',
  navDashboard: 'Сводка', navIssues: 'Уязвимости', navProjects: 'Проекты', navReports: 'Отчёты', mainNav: 'Главное меню',
  signIn: 'Войти', username: 'Имя пользователя', password: 'Пароль', signingIn: 'Вход…', directoryHint: 'Учётные записи каталога (LDAP) входят здесь же.',
  changePassword: 'Смените пароль', changePasswordWhy: 'Прежде чем продолжить, нужно сменить пароль.', currentPassword: 'Текущий пароль',
  newPassword: 'Новый пароль', passwordChanged: 'Пароль изменён. Войдите с новым паролем.', confirmPassword: 'Повторите новый пароль', save: 'Сохранить',
  loading: 'Загрузка…', error: 'Ошибка: {0}', none: 'Пока ничего нет.',
  issues: 'Уязвимости', search: 'Поиск по названию', searchLabel: 'Поиск', filters: 'Фильтры', addFilter: 'Добавить фильтр', filterField: 'Фильтр', filterValue: 'Значение', add: 'Добавить',
  removeFilter: 'Убрать фильтр {0}', clearFilters: 'Сбросить все', sort: 'Сортировка', sortNewest: 'Сначала новые', sortOldest: 'Сначала старые',
  sortSeverity: 'Сначала опасные', sortCvss: 'По убыванию CVSS', sortLastSeen: 'Последние обнаруженные', sortStatus: 'По статусу',
  total: 'Уязвимостей: {0}', nextPage: 'Следующая страница', firstPage: 'Первая страница', selectAll: 'Выбрать все на странице', select: 'Выбрать {0}',
  selected: 'Выбрано: {0}', changeStatus: 'Сменить статус', newStatus: 'Новый статус', comment: 'Комментарий', apply: 'Применить',
  changed: 'Изменено: {0}, без изменений: {1}', title: 'Название', severity: 'Критичность', status: 'Статус', project: 'Проект', tool: 'Инструмент',
  location: 'Расположение', detected: 'Впервые обнаружена', lastDetected: 'Последнее обнаружение', description: 'Описание', occurrences: 'Вхождения',
  detections: 'Обнаружения', history: 'История', back: 'К списку уязвимостей', cve: 'CVE', cwe: 'CWE', library: 'Библиотека', assignee: 'Исполнитель',
  category: 'Категория', rule: 'Правило', actor: 'Кто', field: 'Поле', from: 'Было', to: 'Стало', when: 'Когда', copyLink: 'Этот вид — ссылка: сохраните адрес страницы.',
  f_project_code: 'Проект', f_severity: 'Критичность', f_status: 'Статус', f_tool: 'Инструмент', f_category: 'Категория', f_cve: 'CVE', f_cwe: 'CWE',
  f_assignee: 'Исполнитель', f_lib_name: 'Библиотека', f_layer: 'Id слоя', f_check: 'Id проверки', f_scan: 'Id сканирования', f_exploitability: 'Эксплуатируемость',
  f_cvss_min: 'CVSS не меньше', f_cvss_max: 'CVSS не больше', f_epss_min: 'EPSS не меньше', f_detected_at_start: 'Обнаружена с', f_detected_at_end: 'Обнаружена по',
  f_exclude_duplicates: 'Скрыть дубликаты', f_filter_inversion: 'Обратить фильтры', f_search_file_path: 'Путь содержит', f_search_rule_id: 'Правило содержит',
  f_search_cve: 'CVE содержит', f_search_lib_name: 'Библиотека содержит', f_comment_message: 'Комментарий содержит',
  dashboard: 'Сводка', openBySeverity: 'Открытые уязвимости по критичности', openByStatus: 'Уязвимости по статусам', latestScans: 'Последние сканирования', gate: 'Шлюз',
  passed: 'пройден', failed: 'не пройден', locked: 'заблокирован', noVerdict: 'нет решения', scanState: 'Состояние', findings: 'Находки', created: 'Создано', check: 'Проверка',
  projects: 'Проекты', newProject: 'Новый проект', code: 'Код', name: 'Название', tags: 'Теги (через запятую)', create: 'Создать', layers: 'Слои',
  newLayer: 'Новый слой', layerType: 'Тип слоя', run: 'Запустить', runQueued: 'Сканирование в очереди', scanHistory: 'История сканирований', lastScan: 'Последнее сканирование',
  newIssues: 'Новые', fixed: 'Исправлено',
  newCheck: 'Новая проверка', source: 'Источник', branch: 'Ветка', scanning: 'Сканирование: {0}%',
  reports: 'Отчёты', newReport: 'Новый отчёт', period: 'Период', projectsOptional: 'Коды проектов (через запятую, пусто — все)',
  state: 'Состояние', progress: 'Готовность', download: 'Скачать', downloadAs: 'Скачать {0} в формате {1}',
  p_all: 'За всё время', p_day: 'За день', p_week: 'За неделю', p_month: 'За месяц', p_quarter: 'За квартал', p_year: 'За год',
  p_custom: 'С – по', rangeFrom: 'С', rangeTo: 'По', reportType: 'Тип',
  rt_summary: 'Сводный', rt_detailed: 'Подробный', rt_compliance: 'Соответствие (OWASP Top 10, CWE Top 25)', rt_trend: 'Динамика',
  sev_critical: 'Критическая', sev_high: 'Высокая', sev_medium: 'Средняя', sev_low: 'Низкая', sev_info: 'Информационная',
};

export type Lang = 'en' | 'ru';
export type MessageKey = Key;
const DICTS: Record<Lang, Record<Key, string>> = { en, ru };
const STORAGE_KEY = 'bulwark.lang';

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
  const t = (key: Key, ...args: (string | number)[]) => DICTS[lang][key].replace(/\{(\d)\}/g, (_m, i: string) => String(args[Number(i)] ?? ''));
  return <I18nContext.Provider value={{ lang, setLang, t }}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const ctx = useContext(I18nContext);
  if (!ctx) throw new Error('useI18n outside I18nProvider');
  return ctx;
}

/** Dates in the reader's language, to the minute. */
export const formatDate = (lang: Lang, iso: string | null) =>
  iso ? new Intl.DateTimeFormat(lang === 'ru' ? 'ru-RU' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '—';
