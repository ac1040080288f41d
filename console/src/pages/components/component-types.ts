import type { I18n, MessageKey } from '../../i18n';

/** CycloneDX's component types in the reader's language; a type outside the specification by its own name. */
const TYPES: Record<string, MessageKey> = {
  application: 'compType_application',
  framework: 'compType_framework',
  library: 'compType_library',
  container: 'compType_container',
  platform: 'compType_platform',
  'operating-system': 'compType_operatingSystem',
  device: 'compType_device',
  'device-driver': 'compType_deviceDriver',
  firmware: 'compType_firmware',
  file: 'compType_file',
  'machine-learning-model': 'compType_model',
  data: 'compType_data',
  'cryptographic-asset': 'compType_crypto',
};

export const componentTypeName = (t: I18n['t'], type: string) => (TYPES[type] ? t(TYPES[type]) : type);
