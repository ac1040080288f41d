#!/usr/bin/env node
// Writes the benchmark reports into a directory (default: a new temp dir) and prints its path:
//   sarif-100k.sarif  SARIF 2.1.0, 100,000 results over 300 rules and 4,000 files, with fingerprints
//   trivy-100k.json   Trivy SchemaVersion 2, 100,000 vulnerabilities over 40 targets
//   twistlock-100k.json            twistcli, 100,000 vulnerabilities over 40 images
//   trivy-operator-100k.json       Trivy Operator List of 40 VulnerabilityReports, 100,000 in all
//   nmap-100k.xml                  nmap -oX with the vulners script: 100,000 findings, 5 a port
//                                  (the open port and 4 CVEs), 4 open ports a host
// Usage: node bench/generate.js [dir] [count] [variant]
// A variant writes only a rescan of the SARIF report, as a scanner writes one on every run (its own run id
// and start time, which the SARIF parser gives every finding as its detection time):
//   rescan:K   sarif-100k-rescan-K.sarif   the same findings as sarif-100k.sarif, in new bytes
//   changed:K  sarif-100k-changed-K.sarif  the same, with 1 % changed: a third gone, a third on moved
//                                          lines, a third new
// sarif-100k.sarif itself is variant 0.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');

const dir = process.argv[2] || fs.mkdtempSync(path.join(os.tmpdir(), 'bulwark-bench-'));
const count = Number(process.argv[3] || 100000);
const [variantKind, variantRun] = (process.argv[4] || '').split(':');
if (variantKind && !['rescan', 'changed'].includes(variantKind)) throw new Error(`unknown variant ${variantKind}`);
fs.mkdirSync(dir, { recursive: true });

// mulberry32 with a fixed seed keeps runs comparable.
let seed = 42;
const rand = (n) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) % n;
};
const hex = (s, n) => crypto.createHash('sha256').update(String(s)).digest('hex').slice(0, n);
const levels = ['error', 'warning', 'note'];

/** Streams the document in pieces so that the generator itself stays small. */
function writer(file) {
  const fd = fs.openSync(file, 'w');
  let buf = '';
  return {
    write(s) {
      buf += s;
      if (buf.length > 1 << 20) {
        fs.writeSync(fd, buf);
        buf = '';
      }
    },
    close() {
      fs.writeSync(fd, buf);
      fs.closeSync(fd);
    },
  };
}

/** Which of the base results a 1 % change leaves out or moves (every 300th, offset), and how many it adds. */
const gone = (i) => i % 300 === 0;
const moved = (i) => i % 300 === 100;
const added = Math.floor(count / 300);

function sarif(file, run, changed) {
  const started = new Date(Date.UTC(2026, 0, 1) + run * 3600_000);
  const invocation = {
    executionSuccessful: true,
    startTimeUtc: started.toISOString(),
    endTimeUtc: new Date(started.getTime() + 95_000).toISOString(),
  };
  const rules = Array.from({ length: 300 }, (_, i) => ({
    id: `js/rule-${i}`,
    name: `Rule${i}`,
    shortDescription: { text: `Potential problem number ${i}` },
    fullDescription: { text: `A longer explanation of problem ${i}, why it matters and how it is usually exploited.` },
    defaultConfiguration: { level: levels[i % 3] },
    helpUri: `https://example.com/rules/${i}`,
    properties: {
      tags: ['security', `external/cwe/cwe-${(i % 90) + 20}`],
      'security-severity': String(((i % 90) / 10 + 1).toFixed(1)),
      precision: 'high',
    },
  }));
  const w = writer(file);
  w.write(
    `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"CodeQL","semanticVersion":"2.15.0","rules":${JSON.stringify(rules)}}},"automationDetails":{"id":"bench/run-${run}/"},"invocations":[${JSON.stringify(invocation)}],"results":[`,
  );
  let written = 0;
  for (let i = 0; i < count + (changed ? added : 0); i++) {
    const rule = rand(300);
    const fileNo = rand(4000);
    const line = 1 + rand(2000) + (changed && moved(i) ? 7 : 0);
    const result = {
      ruleId: `js/rule-${rule}`,
      ruleIndex: rule,
      level: levels[rule % 3],
      message: { text: `Value from [user input](1) flows to a sensitive sink in call number ${i % 97}.` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: `src/module${fileNo % 200}/file${fileNo}.js`, uriBaseId: '%SRCROOT%' },
            region: {
              startLine: line,
              startColumn: 5 + rand(40),
              endColumn: 60,
              snippet: { text: `  const v${i % 50} = sink(input${rand(500)});` },
            },
          },
        },
      ],
      partialFingerprints: {
        primaryLocationLineHash: `${hex(`${i}`, 16)}:1`,
        primaryLocationStartColumnFingerprint: String(rand(40)),
      },
      relatedLocations: [
        {
          id: 1,
          physicalLocation: {
            artifactLocation: { uri: `src/module${fileNo % 200}/file${fileNo}.js` },
            region: { startLine: Math.max(1, line - 3) },
          },
          message: { text: 'user input' },
        },
      ],
    };
    // A gone result still draws its random numbers, so the others stay as they were.
    if (changed && i < count && gone(i)) continue;
    w.write((written++ ? ',' : '') + JSON.stringify(result));
  }
  w.write(']}]}');
  w.close();
}

function trivy(file) {
  const sev = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'];
  const w = writer(file);
  w.write(
    '{"SchemaVersion":2,"ArtifactName":"registry.example.com/app:1.0","ArtifactType":"container_image","Metadata":{"OS":{"Family":"debian","Name":"12.1"}},"Results":[',
  );
  const targets = 40;
  const per = Math.ceil(count / targets);
  let n = 0;
  for (let t = 0; t < targets && n < count; t++) {
    w.write(
      `${t ? ',' : ''}{"Target":"app/lib${t}/package-lock.json","Class":"lang-pkgs","Type":"npm","Vulnerabilities":[`,
    );
    for (let j = 0; j < per && n < count; j++, n++) {
      const pkg = `pkg-${rand(3000)}`;
      const v = {
        VulnerabilityID: `CVE-20${10 + rand(14)}-${10000 + n}`,
        PkgID: `${pkg}@1.${rand(20)}.${rand(10)}`,
        PkgName: pkg,
        PkgPath: `app/lib${t}/node_modules/${pkg}/package.json`,
        InstalledVersion: `1.${rand(20)}.${rand(10)}`,
        FixedVersion: `2.${rand(5)}.0`,
        Status: 'fixed',
        SeveritySource: 'ghsa',
        PrimaryURL: `https://avd.aquasec.com/nvd/cve-${n}`,
        Title: `${pkg}: prototype pollution in merge function ${n % 113}`,
        Description: `A flaw was found in ${pkg}. A crafted payload passed to the merge function can modify the prototype of Object, which may lead to denial of service or code execution in applications that use it.`,
        Severity: sev[rand(5)],
        CweIDs: [`CWE-${1 + rand(1000)}`],
        CVSS: {
          ghsa: { V3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', V3Score: 7.5 },
          nvd: {
            V2Vector: 'AV:N/AC:L/Au:N/C:N/I:N/A:P',
            V3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
            V2Score: 5,
            V3Score: 7.5,
          },
        },
        References: [
          `https://github.com/advisories/GHSA-${hex(n, 4)}-${hex(n + 1, 4)}-${hex(n + 2, 4)}`,
          `https://nvd.nist.gov/vuln/detail/CVE-${n}`,
        ],
        PublishedDate: '2023-01-01T00:00:00Z',
        LastModifiedDate: '2023-06-01T00:00:00Z',
      };
      w.write((j ? ',' : '') + JSON.stringify(v));
    }
    w.write(']}');
  }
  w.write(']}');
  w.close();
}

/** Per image (Twistlock) or workload (Trivy Operator): 40 of them, count / 40 vulnerabilities each. */
function perImage(write) {
  const images = 40;
  const per = Math.ceil(count / images);
  let n = 0;
  for (let i = 0; i < images && n < count; i++) {
    const vulns = [];
    for (let j = 0; j < per && n < count; j++, n++)
      vulns.push({ n, pkg: `pkg-${rand(3000)}`, version: `1.${rand(20)}.${rand(10)}` });
    write(i, vulns);
  }
}

function twistlock(file) {
  const sev = ['critical', 'high', 'medium', 'low'];
  const w = writer(file);
  w.write('{"results":[');
  perImage((i, vulns) => {
    w.write(
      `${i ? ',' : ''}{"id":"sha256:${hex(i, 64)}","name":"registry.example.com/app${i}:1.0","distro":"Debian GNU/Linux 12","complianceDistribution":{"total":0},"compliances":[],"vulnerabilityDistribution":{"total":${vulns.length}},"vulnerabilities":[`,
    );
    vulns.forEach((v, j) => {
      const entry = {
        id: `CVE-20${10 + rand(14)}-${10000 + v.n}`,
        status: `fixed in 2.${rand(5)}.0`,
        cvss: 7.5,
        vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
        description: `A flaw was found in ${v.pkg}. A crafted payload passed to the merge function can modify the prototype of Object.`,
        severity: sev[rand(4)],
        packageName: v.pkg,
        packageVersion: v.version,
        link: `https://nvd.nist.gov/vuln/detail/CVE-${v.n}`,
        riskFactors: ['Has fix', 'Attack vector: network'],
        packagePath: `/app/node_modules/${v.pkg}/package.json`,
        discoveredDate: '2024-01-01T00:00:00Z',
      };
      w.write((j ? ',' : '') + JSON.stringify(entry));
    });
    w.write(']}');
  });
  w.write(']}');
  w.close();
}

function trivyOperator(file) {
  const sev = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'];
  const w = writer(file);
  w.write('{"apiVersion":"v1","kind":"List","items":[');
  perImage((i, vulns) => {
    const labels = {
      'trivy-operator.resource.kind': 'ReplicaSet',
      'trivy-operator.resource.name': `app${i}-7d9f`,
      'trivy-operator.resource.namespace': 'shop',
      'trivy-operator.container.name': 'app',
    };
    w.write(
      `${i ? ',' : ''}{"apiVersion":"aquasecurity.github.io/v1alpha1","kind":"VulnerabilityReport","metadata":{"name":"replicaset-app${i}-7d9f-app","namespace":"shop","labels":${JSON.stringify(labels)}},"report":{"artifact":{"repository":"app${i}","tag":"1.0"},"registry":{"server":"registry.example.com"},"scanner":{"name":"Trivy","vendor":"Aqua Security","version":"0.50.1"},"vulnerabilities":[`,
    );
    vulns.forEach((v, j) => {
      const entry = {
        vulnerabilityID: `CVE-20${10 + rand(14)}-${10000 + v.n}`,
        resource: v.pkg,
        installedVersion: v.version,
        fixedVersion: `2.${rand(5)}.0`,
        severity: sev[rand(5)],
        score: 7.5,
        title: `${v.pkg}: prototype pollution in merge function ${v.n % 113}`,
        primaryLink: `https://avd.aquasec.com/nvd/cve-${v.n}`,
        links: [],
        target: `app/node_modules/${v.pkg}/package.json`,
        class: 'lang-pkgs',
        packageType: 'npm',
      };
      w.write((j ? ',' : '') + JSON.stringify(entry));
    });
    w.write(']}}');
  });
  w.write(']}');
  w.close();
}

/** Nmap XML as `nmap -sV --script vulners -oX` writes it: per host 4 open ports, each with 4 CVEs. */
function nmap(file) {
  const services = [
    ['22', 'ssh', 'OpenSSH', '8.9p1', 'cpe:/a:openbsd:openssh:8.9p1'],
    ['80', 'http', 'nginx', '1.18.0', 'cpe:/a:igor_sysoev:nginx:1.18.0'],
    ['443', 'https', 'nginx', '1.18.0', 'cpe:/a:igor_sysoev:nginx:1.18.0'],
    ['5432', 'postgresql', 'PostgreSQL DB', '13.4', 'cpe:/a:postgresql:postgresql:13.4'],
  ];
  const hosts = Math.ceil(count / (services.length * 5));
  const w = writer(file);
  w.write(
    '<?xml version="1.0" encoding="UTF-8"?>\n<nmaprun scanner="nmap" args="nmap -sV --script vulners -oX out.xml 10.0.0.0/16" start="1700000000" version="7.94" xmloutputversion="1.05">\n',
  );
  for (let h = 0; h < hosts; h++) {
    const ip = `10.0.${Math.floor(h / 250)}.${(h % 250) + 1}`;
    w.write(
      `<host starttime="1700000000" endtime="1700000100"><status state="up" reason="syn-ack"/><address addr="${ip}" addrtype="ipv4"/><hostnames><hostname name="host${h}.example.com" type="PTR"/></hostnames><ports>`,
    );
    for (const [port, name, product, version, cpe] of services) {
      let vulns = '';
      for (let v = 0; v < 4; v++)
        vulns += `<table><elem key="is_exploit">false</elem><elem key="cvss">${(4 + rand(60) / 10).toFixed(1)}</elem><elem key="id">CVE-20${10 + rand(14)}-${10000 + rand(90000)}</elem><elem key="type">cve</elem></table>`;
      w.write(
        `<port protocol="tcp" portid="${port}"><state state="open" reason="syn-ack" reason_ttl="64"/><service name="${name}" product="${product}" version="${version}" method="probed" conf="10"><cpe>${cpe}</cpe></service><script id="vulners" output="${cpe}"><table key="${cpe}">${vulns}</table></script></port>`,
      );
    }
    w.write('</ports></host>\n');
  }
  w.write(
    '<runstats><finished time="1700000500" exit="success"/><hosts up="' +
      hosts +
      '" down="0" total="' +
      hosts +
      '"/></runstats></nmaprun>\n',
  );
  w.close();
}

if (variantKind) {
  sarif(path.join(dir, `sarif-100k-${variantKind}-${variantRun}.sarif`), Number(variantRun), variantKind === 'changed');
} else {
  sarif(path.join(dir, 'sarif-100k.sarif'), 0, false);
  trivy(path.join(dir, 'trivy-100k.json'));
  twistlock(path.join(dir, 'twistlock-100k.json'));
  trivyOperator(path.join(dir, 'trivy-operator-100k.json'));
  nmap(path.join(dir, 'nmap-100k.xml'));
}
console.log(dir);
