import { AreaTabs } from '../../editing';
import { useI18n } from '../../i18n';

export function NotificationsTabs() {
  const { t } = useI18n();
  return (
    <AreaTabs
      label={t('notificationsNav')}
      tabs={[
        ['/notifications', t('notifiers')],
        ['/notifications/events', t('events')],
        ['/notifications/errors', t('errorsLog')],
      ]}
    />
  );
}
