/*
 * The ARC client role alone, for its flash: what nostd-check's client_arc
 * binary does. A credential request through the randomness callback, the
 * finalize of the draft's response from the draft's request state (the
 * credential compared with the draft's), then a presentation state of
 * limit 2 and one token. Exit status 0 when all of it worked.
 */
#include <stddef.h>
#include <stdint.h>

#include "kat_data.h"
#include "pat.h"
#include "rt.h"

int app_main(void)
{
    const struct arc_kat *v = &arc_kat;
    uint8_t request[PAT_ARC_REQUEST_LEN], state[PAT_ARC_REQUEST_STATE_LEN], credential[PAT_ARC_CREDENTIAL_LEN];
    static uint8_t presentation_state[PAT_ARC_PRESENTATION_STATE_LEN], token[PAT_ARC_TOKEN_MAX_LEN];

    struct test_rng rng = {7, 0};
    if (pat_arc_request(v->pk.p, v->pk.n, v->challenge.p, v->challenge.n, test_rng, &rng, request, sizeof request,
                        state, sizeof state) != PAT_ARC_REQUEST_LEN) {
        return 1;
    }
    if (v->state.n != sizeof state || v->credential.n != sizeof credential) {
        return 1;
    }
    for (size_t i = 0; i < sizeof state; i++) {
        state[i] = v->state.p[i];
    }
    if (pat_arc_finalize(v->pk.p, v->pk.n, state, sizeof state, v->response.p, v->response.n, credential,
                         sizeof credential) != PAT_ARC_CREDENTIAL_LEN) {
        return 1;
    }
    for (size_t i = 0; i < sizeof credential; i++) {
        if (credential[i] != v->credential.p[i]) {
            return 1;
        }
    }
    if (pat_arc_presentation_state(v->pk.p, v->pk.n, credential, sizeof credential, v->challenge.p, v->challenge.n,
                                   2, presentation_state, sizeof presentation_state) != PAT_ARC_PRESENTATION_STATE_LEN) {
        return 1;
    }
    pat_wipe(credential, sizeof credential);
    int32_t rc = pat_arc_token(v->pk.p, v->pk.n, presentation_state, sizeof presentation_state, v->challenge.p,
                               v->challenge.n, test_rng, &rng, token, sizeof token);
    return rc == pat_arc_token_len(2) ? 0 : 1;
}
