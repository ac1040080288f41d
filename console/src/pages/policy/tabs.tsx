import { AreaTabs } from '../../editing';
import { useI18n } from '../../i18n';

export function PolicyTabs() {
  const { t } = useI18n();
  return (
    <AreaTabs
      label={t('policyNav')}
      tabs={[
        ['/policy', t('qualityGates')],
        ['/policy/rules', t('securityRules')],
        ['/policy/policies', t('policies')],
      ]}
    />
  );
}
