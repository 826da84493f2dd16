// replay.mjs: spending one token at several origins, with privacypass-ts as
// the client (test-only; used by scripts/interop).
//
//   node replay.mjs token ORIGIN_URL
//       GET the origin, answer its 401 with privacypass-ts's header_to_token
//       (directory and issuance at https://<issuer_name>) and print the
//       Authorization value, without spending it.
//   node replay.mjs get URL AUTHORIZATION
//       GET with the Authorization value; print the status.
//   node replay.mjs race N AUTHORIZATION URL [URL...]
//       N concurrent GETs with one Authorization value, spread round-robin
//       over the URLs; print `race: N requests, S accepted, R refused` and
//       exit 0 iff exactly one was accepted (200) and all others were 401.

import { header_to_token } from '@cloudflare/privacypass-ts';

console.log = (...a) => console.error('[privacypass-ts]', ...a);

async function main(argv) {
    const [cmd, ...rest] = argv;
    if (cmd === 'token' && rest.length === 1) {
        const res = await fetch(rest[0]);
        const header = res.headers.get('www-authenticate');
        if (res.status !== 401 || !header) throw new Error(`expected 401 with a challenge, got ${res.status}`);
        const auth = await header_to_token(header);
        if (!auth) throw new Error('header_to_token returned no token');
        process.stdout.write(auth + '\n');
        return 0;
    }
    if (cmd === 'get' && rest.length === 2) {
        const res = await fetch(rest[0], { headers: { authorization: rest[1] } });
        process.stdout.write(`${res.status}\n`);
        return 0;
    }
    if (cmd === 'race' && rest.length >= 3) {
        const n = Number(rest[0]);
        const auth = rest[1];
        const urls = rest.slice(2);
        const statuses = await Promise.all(
            Array.from({ length: n }, (_, i) =>
                fetch(urls[i % urls.length], { headers: { authorization: auth } }).then((r) => r.status),
            ),
        );
        const accepted = statuses.filter((s) => s === 200).length;
        const refused = statuses.filter((s) => s === 401).length;
        const other = statuses.filter((s) => s !== 200 && s !== 401);
        const others = other.length ? `, other statuses: ${other.join(' ')}` : '';
        process.stdout.write(`race: ${n} requests, ${accepted} accepted, ${refused} refused${others}\n`);
        return accepted === 1 && refused === n - 1 ? 0 : 1;
    }
    process.stderr.write('usage: replay.mjs token URL | get URL AUTH | race N AUTH URL...\n');
    return 2;
}

main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
        process.stderr.write(`replay.mjs: ${e?.stack ?? e}\n`);
        process.exit(1);
    },
);
