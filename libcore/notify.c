/*  notify.c - the service manager's notifications, over sd_notify(); see
    notify.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-daemon.h>

#include "libcore/log.h"
#include "libcore/notify.h"

/* Longest socket path (sockaddr_un's sun_path). */
enum { s_socket_max = 108 };

/* NOTIFY_SOCKET as it was at start-up, or "" (the process's own, as the
   environment is). */
static char s_socket[s_socket_max + 1];

void
hearth_notify_init (void)
{
    const char *socket = getenv ("NOTIFY_SOCKET");
    s_socket[0] = '\0';
    if (socket && strlen (socket) <= s_socket_max)
        snprintf (s_socket, sizeof s_socket, "%s", socket);
    else if (socket)
        log_warn ("NOTIFY_SOCKET is too long (%zu bytes): the service manager "
                  "is not told how the daemon is doing",
                  strlen (socket));
    unsetenv ("NOTIFY_SOCKET");
}

int
hearth_notify (const char *state)
{
    if (!s_socket[0])
        return 0;
    /* sd_notify reads the socket from the environment: put it there for
       the call only (1: it unsets it again). */
    if (setenv ("NOTIFY_SOCKET", s_socket, 1) < 0)
        return -1;
    int rc = sd_notify (1, state);
    unsetenv ("NOTIFY_SOCKET");
    if (rc < 0) {
        log_warn ("cannot notify the service manager at %s: %s", s_socket,
                  strerror (-rc));
        errno = -rc;
        return -1;
    }
    return rc > 0 ? 1 : 0;
}

int
hearth_notifyf (const char *fmt, ...)
{
    char state[1024];
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (state, sizeof state, fmt, ap);
    va_end (ap);
    if (n < 0 || (size_t) n >= sizeof state) {
        log_warn ("cannot notify the service manager: a state of %d bytes", n);
        errno = EMSGSIZE;
        return -1;
    }
    return hearth_notify (state);
}
