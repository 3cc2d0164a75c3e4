/*  signals.c - SIGINT and SIGTERM for libhearth programs that do not
    handle them; see signals.h.

    The handler only records the signal (async-signal-safe); each engine
    looks at it on its tick, ends its application KILLED, and stops.  The
    last engine to stop raises the signal again, with the default action
    the handler restored on entry (SA_RESETHAND), so that the program ends
    as it would have without libhearth, after its application's end has
    been told and its executors stopped.
*/
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "libhearth/signals.h"

/* The signals handled. */
static const int s_signals[] = {SIGINT, SIGTERM};

/* The signal caught, or 0 (written by the handler). */
static volatile sig_atomic_t s_caught;
/* Guards what follows. */
static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;
/* The handlers were looked at (once per process). */
static bool s_installed;
/* Engines running. */
static int s_engines;

static void
s_on_signal (int sig)
{
    if (!s_caught)
        s_caught = sig;
}

/* Install the handler for sig if its action is the default. */
static void
s_install (int sig)
{
    struct sigaction old;
    if (sigaction (sig, NULL, &old) < 0 || old.sa_handler != SIG_DFL
        || (old.sa_flags & SA_SIGINFO))
        return; /* the program's own, or ignored: left as it is */
    struct sigaction sa = {.sa_handler = s_on_signal,
                           .sa_flags = SA_RESETHAND | SA_RESTART};
    sigemptyset (&sa.sa_mask);
    sigaction (sig, &sa, NULL);
}

void
driver_signals_engine_start (void)
{
    pthread_mutex_lock (&s_lock);
    if (!s_installed) {
        s_installed = true;
        for (size_t i = 0; i < sizeof s_signals / sizeof s_signals[0]; i++)
            s_install (s_signals[i]);
    }
    s_engines++;
    pthread_mutex_unlock (&s_lock);
}

int
driver_signals_caught (void)
{
    return s_caught;
}

void
driver_signals_engine_end (void)
{
    pthread_mutex_lock (&s_lock);
    bool last = --s_engines == 0;
    pthread_mutex_unlock (&s_lock);
    int sig = s_caught;
    if (!last || !sig)
        return;
    /* The handler has restored the default action already. */
    sigset_t set;
    sigemptyset (&set);
    sigaddset (&set, sig);
    pthread_sigmask (SIG_UNBLOCK, &set, NULL);
    raise (sig);
}
