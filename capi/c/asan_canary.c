/*
 * Must fail under AddressSanitizer: scripts/capi runs it to prove that the
 * sanitizer build of the C test really is instrumented (a quiet ASan run
 * would otherwise prove nothing). The overflow is on the C side, where ASan
 * looks; the library's own writes are bounded by Rust and by the guard
 * bytes of vectors.c.
 */
#include <stdint.h>
#include <stdlib.h>

#include "pat.h"

int main(int argc, char **argv) {
    (void)argv;
    uint8_t key_id[PAT_KEY_ID_LEN];
    uint8_t *copy = malloc(PAT_KEY_ID_LEN - 1);
    if (copy == NULL) return 0;
    int32_t rc = pat_token_key_id((const uint8_t *)"key", 3, key_id, sizeof key_id);
    /* One byte too many (argc is 1; it keeps the compiler from proving
     * it): a plain loop, so the access is ASan's own instrumentation. */
    for (int i = 0; i < PAT_KEY_ID_LEN - 1 + argc; i++) {
        ((volatile uint8_t *)copy)[i] = key_id[i];
    }
    free(copy);
    return rc == PAT_KEY_ID_LEN ? 0 : 1;
}
