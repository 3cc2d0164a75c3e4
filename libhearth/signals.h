/*  signals.h - SIGINT and SIGTERM in a libhearth program that leaves them
    at their default action: the application ends KILLED, cleanly, and the
    process then dies of the signal as it would have.

    A program that handles these signals itself (hearth-driver does) is
    left alone: it says how its application ends with
    hearth_ctx_set_final_state().  Signal dispositions are process-wide,
    so this module keeps the one piece of global state of the driver:
    which signal came, and how many engines are still stopping because of
    it.
*/
#ifndef HEARTH_LIBHEARTH_SIGNALS_H
#define HEARTH_LIBHEARTH_SIGNALS_H

/* An engine starts: catch SIGINT and SIGTERM where their action is the
   default (once per process; the handler restores the default at once,
   so that a second signal kills the process outright). */
void driver_signals_engine_start (void);
/* The signal caught (SIGINT or SIGTERM), or 0. */
int driver_signals_caught (void);
/* An engine has stopped.  If a signal was caught and every engine has
   stopped, the signal is raised again with its default action (the
   process dies of it); otherwise this returns. */
void driver_signals_engine_end (void);

#endif
