# C declarations for the arena's compiled build of match.py (setup.py copies this file
# beside its twin): the clock the compiled core times bot calls with. Linux's coarse
# monotonic clock (the same time base as perf_counter's, read in about 3 ns instead of 25,
# advancing once per kernel tick: 4 ms on the development machine) where there is one, the
# precise monotonic clock elsewhere.

cdef extern from *:
    """
    #include <time.h>
    #ifdef CLOCK_MONOTONIC_COARSE
    #define UMPIRE_CALL_CLOCK CLOCK_MONOTONIC_COARSE
    #else
    #define UMPIRE_CALL_CLOCK CLOCK_MONOTONIC
    #endif
    """
    const int UMPIRE_CALL_CLOCK
