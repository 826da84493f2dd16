/*
 * The freestanding runtime of the C firmware (rt.c): reset, exceptions, and
 * semihosting for output and the exit status. No libc.
 */
#ifndef RT_H
#define RT_H

#include <stdint.h>

/* The firmware's entry, called once .data and .bss are set up; its return
 * value becomes qemu's exit status (0: pass). */
int app_main(void);

/* Ends the qemu run with `status` as its exit status. */
_Noreturn void rt_exit(int status);

/* Output is assembled into one line and written with a single semihosting
 * call (each call traps to the host, so one per line keeps runs quick).
 * A line longer than the buffer is cut, never overrun. */
void rt_put(const char *s);
void rt_put_u64(uint64_t v);
void rt_put_i32(int32_t v);
void rt_put_hex16(uint16_t v);
/* Ends the line and writes it. */
void rt_line(void);

/* The lowest address the stack may grow to (link.ld). */
extern uint32_t rt_stack_bottom[];

/* The current stack pointer. */
static inline uintptr_t rt_sp(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/* Counts SysTick wraps; set by rt.c's SysTick handler. */
extern volatile uint32_t rt_systick_wraps;

#endif
