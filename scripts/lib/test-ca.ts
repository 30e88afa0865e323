import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCa {
  /** PEM of the CA: give it to NODE_EXTRA_CA_CERTS so the test processes trust the receiver. */
  readonly caCert: string;
  /** The CA plus the certificates of `alsoTrust`, for NODE_EXTRA_CA_CERTS (which names a single file). */
  readonly caBundle: string;
  /** Leaf certificate and key for `leafNames` (default `example.com` and `*.example.com`), signed by the CA. */
  readonly leafCert: string;
  readonly leafKey: string;
}

const openssl = (args: string[]): void => {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
};

/**
 * A throw-away CA and one leaf certificate, made with the openssl CLI (no npm package) in `dir`. P-256 keys keep it
 * fast; two days of validity is plenty for one test run (`npm run dev` keeps its own longer in .data/tls/).
 * `leafNames` are the leaf's subjectAltName entries (`DNS:…`, `IP:…`).
 */
export function createTestCa(
  dir: string,
  alsoTrust?: string,
  days = 2,
  leafNames: readonly string[] = ['DNS:example.com', 'DNS:*.example.com'],
): TestCa {
  mkdirSync(dir, { recursive: true });
  const path = (name: string): string => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', path('ca.key'), '-out', path('ca.pem'), '-days', String(days)].concat(
      ['-subj', '/CN=Herald test CA', '-addext', 'basicConstraints=critical,CA:TRUE'],
      ['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    ),
  );
  openssl(['req', ...ec, '-keyout', path('leaf.key'), '-out', path('leaf.csr'), '-subj', '/CN=example.com']);
  writeFileSync(
    path('leaf.ext'),
    [
      `subjectAltName=${leafNames.join(',')}`,
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  );
  openssl(
    ['x509', '-req', '-in', path('leaf.csr'), '-CA', path('ca.pem'), '-CAkey', path('ca.key')].concat(
      ['-set_serial', `0x${randomBytes(8).toString('hex')}`, '-days', String(days)],
      ['-extfile', path('leaf.ext'), '-out', path('leaf.pem')],
    ),
  );
  // Keep the CAs the developer already trusts (e.g. a corporate proxy's) next to ours.
  const previous = alsoTrust && existsSync(alsoTrust) ? readFileSync(alsoTrust, 'utf8') : '';
  writeFileSync(path('ca-bundle.pem'), `${previous.trimEnd()}\n${readFileSync(path('ca.pem'), 'utf8')}`.trimStart());
  return {
    caCert: path('ca.pem'),
    caBundle: path('ca-bundle.pem'),
    leafCert: path('leaf.pem'),
    leafKey: path('leaf.key'),
  };
}

/** A client certificate (extendedKeyUsage clientAuth) signed by the CA `createTestCa` made in `dir`, for mTLS. */
export function createClientCert(dir: string, name: string): { cert: string; key: string } {
  const path = (file: string): string => join(dir, `${name}.${file}`);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(['req', ...ec, '-keyout', path('key'), '-out', path('csr'), '-subj', `/CN=${name}`]);
  writeFileSync(path('ext'), 'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\n');
  openssl(
    ['x509', '-req', '-in', path('csr'), '-CA', join(dir, 'ca.pem'), '-CAkey', join(dir, 'ca.key')].concat(
      ['-set_serial', `0x${randomBytes(8).toString('hex')}`, '-days', '2'],
      ['-extfile', path('ext'), '-out', path('pem')],
    ),
  );
  return { cert: path('pem'), key: path('key') };
}
