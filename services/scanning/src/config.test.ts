import { expect } from 'chai';
import { readScanningConfig } from './config';

describe('Kubernetes runner configuration', () => {
  it('takes the SCAN_K8S_* settings, with https or loopback http API URLs only', () => {
    const config = readScanningConfig({
      SCAN_RUNNER: 'kubernetes',
      SCAN_K8S_NAMESPACE: 'bulwark-scans',
      SCAN_K8S_API_URL: 'https://10.0.0.1:6443',
      SCAN_K8S_TTL_SECONDS: '60',
    });
    expect(config).to.include({
      SCAN_RUNNER: 'kubernetes',
      SCAN_K8S_NAMESPACE: 'bulwark-scans',
      SCAN_K8S_TTL_SECONDS: 60,
      SCAN_K8S_POLL_MS: 2000,
      SCAN_K8S_GIT_IMAGE: 'alpine/git:latest',
    });
    expect(readScanningConfig({ SCAN_K8S_API_URL: 'http://127.0.0.1:8001' }).SCAN_K8S_API_URL).to.equal(
      'http://127.0.0.1:8001',
    );
    expect(() => readScanningConfig({ SCAN_K8S_API_URL: 'http://10.0.0.1:8080' })).to.throw(/SCAN_K8S_API_URL/);
    expect(() => readScanningConfig({ SCAN_K8S_NAMESPACE: 'Not_A_Namespace' })).to.throw(/SCAN_K8S_NAMESPACE/);
  });
});
