/*
 * Start-up and semihosting for the Cortex-M4 firmware: the vector table,
 * the reset handler (FPU on, .data copied, .bss zeroed), a handler that
 * reports any unexpected exception, and output and exit through the
 * debugger interface qemu emulates with -semihosting-config.
 */
#include <stddef.h>
#include <stdint.h>

#include "rt.h"

/* Linker-script symbols (link.ld). */
extern uint32_t rt_stack_top[];
extern uint32_t rt_data_start[], rt_data_end[], rt_data_load[];
extern uint32_t rt_bss_start[], rt_bss_end[];

/* Semihosting operation numbers (Arm semihosting specification). */
enum {
    SYS_WRITE0 = 0x04,
    SYS_EXIT = 0x18,
    SYS_EXIT_EXTENDED = 0x20,
};

/* Reasons reported with SYS_EXIT. */
enum {
    ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
    ADP_STOPPED_APPLICATION_EXIT = 0x20026,
};

/* On M-profile cores `bkpt 0xAB` is the semihosting trap: r0 names the
 * operation, r1 its argument, and r0 carries the result back. */
static uint32_t semihost(uint32_t op, uintptr_t arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register uintptr_t r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

_Noreturn void rt_exit(int status)
{
    /* The 32-bit SYS_EXIT only tells "application exit" (qemu status 0)
     * from anything else (status 1); SYS_EXIT_EXTENDED takes a block of
     * reason and status, so the status itself reaches qemu. */
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    semihost(SYS_EXIT_EXTENDED, (uintptr_t)block);
    /* Still here: the host lacks the extended call; keep pass and fail apart. */
    semihost(SYS_EXIT, status == 0 ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN);
    for (;;) {
        __asm__ volatile("wfi");
    }
}

static char line[192];
static size_t line_len;

void rt_put(const char *s)
{
    /* Keep the last byte for the NUL that SYS_WRITE0 needs. */
    while (*s != '\0' && line_len < sizeof line - 1) {
        line[line_len++] = *s++;
    }
}

void rt_put_u64(uint64_t v)
{
    char digits[21];
    size_t i = sizeof digits - 1;
    digits[i] = '\0';
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    rt_put(&digits[i]);
}

void rt_put_i32(int32_t v)
{
    if (v < 0) {
        rt_put("-");
        /* Widened first: negating INT32_MIN in 32 bits would overflow. */
        rt_put_u64((uint64_t)(-(int64_t)v));
    } else {
        rt_put_u64((uint64_t)v);
    }
}

void rt_put_hex16(uint16_t v)
{
    static const char hex[] = "0123456789abcdef";
    char s[7] = {'0', 'x', hex[v >> 12], hex[(v >> 8) & 15], hex[(v >> 4) & 15], hex[v & 15], '\0'};
    rt_put(s);
}

void rt_line(void)
{
    rt_put("\n");
    line[line_len] = '\0';
    semihost(SYS_WRITE0, (uintptr_t)line);
    line_len = 0;
}

volatile uint32_t rt_systick_wraps;

static void rt_systick(void)
{
    rt_systick_wraps++;
}

/* Any other exception is a failure: a fault, or an interrupt nothing
 * enabled. */
static void rt_unexpected(void)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    line_len = 0;
    rt_put("unexpected exception ");
    rt_put_u64(ipsr & 0x1FF);
    rt_line();
    rt_exit(3);
}

_Noreturn void rt_reset(void);

_Noreturn void rt_reset(void)
{
    /* The hard-float code (ours and the library's) needs CP10 and CP11,
     * which reset leaves off: full access for both, then the barriers that
     * make it take effect before the next instruction. */
    volatile uint32_t *const cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");

    /* Sizes come from address differences: the symbols are distinct
     * objects to C, so comparing the pointers themselves is not defined. */
    size_t data_words = ((uintptr_t)rt_data_end - (uintptr_t)rt_data_start) / 4;
    for (size_t i = 0; i < data_words; i++) {
        rt_data_start[i] = rt_data_load[i];
    }
    size_t bss_words = ((uintptr_t)rt_bss_end - (uintptr_t)rt_bss_start) / 4;
    for (size_t i = 0; i < bss_words; i++) {
        rt_bss_start[i] = 0;
    }
    rt_exit(app_main());
}

/* The Armv7-M vector table: the initial stack pointer, then the handlers
 * of exceptions 1 to 15 (the firmware enables no external interrupt). */
struct vector_table {
    uint32_t *initial_sp;
    void (*handler[15])(void);
};

__attribute__((section(".vectors"), used)) static const struct vector_table vectors = {
    .initial_sp = rt_stack_top,
    .handler = {
        rt_reset, /* 1: reset */
        rt_unexpected, rt_unexpected, rt_unexpected, rt_unexpected, rt_unexpected, /* 2-6: NMI, faults */
        NULL, NULL, NULL, NULL, /* 7-10: reserved */
        rt_unexpected, rt_unexpected, NULL, rt_unexpected, /* 11 SVCall, 12 DebugMonitor, 13, 14 PendSV */
        rt_systick, /* 15: SysTick */
    },
};
