/* callgrind's client requests as plain C functions, for bench_ir.py (loaded with ctypes).
   Built on first use with the system's C compiler against valgrind's callgrind.h; outside
   valgrind each is a few no-op instructions. */
#include <valgrind/callgrind.h>

void ir_start(void) { CALLGRIND_START_INSTRUMENTATION; }

void ir_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }

void ir_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
