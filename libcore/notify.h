/*  notify.h - telling the service manager how a daemon is doing (systemd's
    Type=notify: READY=1 once it serves, STOPPING=1 when it stops,
    STATUS=... lines), through libsystemd's sd_notify().  Both daemons
    call these, and only they link this module (libhearthnotify.la: no
    program or library of a user's needs libsystemd).

    The service manager names its socket in NOTIFY_SOCKET.
    hearth_notify_init() takes it out of the environment, so that no child
    the daemon spawns (executors, their tasks, drivers) inherits it, and
    keeps it for hearth_notify(): the socket belongs to the process, as
    the environment it came from, so this module keeps that one copy in a
    static.  Without NOTIFY_SOCKET (a daemon started by hand or by the
    scripts) every call does nothing.
*/
#ifndef HEARTH_NOTIFY_H
#define HEARTH_NOTIFY_H

/* Take NOTIFY_SOCKET out of the environment and keep it.  Call once, at
   start-up, before any child is spawned. */
void hearth_notify_init (void);

/* Send state (borrowed: "READY=1", "STOPPING=1", "STATUS=...", several
   separated by newlines) to the service manager.  1 when sent, 0 when the
   daemon was not started by one, -1 with errno on failure, which is
   logged (a warning: the daemon goes on). */
int hearth_notify (const char *state);

/* The same, with a printf format for the state. */
int hearth_notifyf (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2)));

#endif
