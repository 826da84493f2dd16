/*
 * The flash baseline: the runtime alone (vector table, reset, exception
 * report, semihosting exit), no library code. scripts/capi-firmware
 * subtracts its size from each role firmware's, as scripts/footprint does
 * with nostd-check's `baseline`.
 */
#include "rt.h"

int app_main(void)
{
    return 0;
}
