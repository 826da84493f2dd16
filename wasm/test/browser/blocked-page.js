// Page 4, served from an origin the services were not told about: the
// browser must refuse the page every response (fetch rejects), so a page
// of any site cannot use an issuer or an origin that did not allow it.
import { Checks, config } from './flow.mjs';

const checks = new Checks('browser CORS (an origin not allowed)');
const cfg = config();
const refused = async (url, init) => {
    let error;
    try {
        await fetch(url, init);
    } catch (e) {
        error = e;
    }
    if (!(error instanceof TypeError)) throw new Error(`the browser let the page read ${url}`);
};
await checks.check('the origin\'s challenge is not readable', () => refused(cfg.origins[2]));
await checks.check('the issuer directory is not readable', () => refused(cfg.issuerUrl + '/.well-known/private-token-issuer-directory'));
await checks.check('a POST to the issuer is refused at the preflight', () =>
    refused(cfg.requestUri, {
        method: 'POST',
        headers: { 'Content-Type': 'application/private-token-request' },
        body: new Uint8Array(8),
    }));
window.__patResult = checks.result();
