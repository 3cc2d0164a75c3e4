/*  notify-listen.c - a service manager's end of sd_notify() for the tests:
    binds a unix datagram socket at PATH and prints every line of every
    datagram that arrives ("READY=1", "STATUS=..."), followed by
    " file=yes" or " file=no": whether FILE existed when it arrived (the
    daemon's ready file).  Prints "LISTENING" once bound; exits 0 on
    SIGTERM or after 60 s.

        notify-listen PATH FILE
*/
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* How long it listens at most. */
static const int s_max_ms = 60000;

static volatile sig_atomic_t s_stop;

static void
s_on_term (int sig)
{
    (void) sig;
    s_stop = 1;
}

static void
s_print (const char *buf, const char *file)
{
    const char *exists = access (file, F_OK) == 0 ? "yes" : "no";
    const char *line = buf;
    while (*line) {
        size_t n = strcspn (line, "\n");
        printf ("%.*s file=%s\n", (int) n, line, exists);
        line += n + (line[n] == '\n');
    }
    fflush (stdout);
}

int
main (int argc, char **argv)
{
    if (argc != 3) {
        fprintf (stderr, "usage: notify-listen PATH FILE\n");
        return 2;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen (argv[1]) >= sizeof sa.sun_path) {
        fprintf (stderr, "notify-listen: %s: too long\n", argv[1]);
        return 2;
    }
    snprintf (sa.sun_path, sizeof sa.sun_path, "%s", argv[1]);
    unlink (argv[1]);
    int fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
        fprintf (stderr, "notify-listen: %s: %s\n", argv[1], strerror (errno));
        return 1;
    }
    struct sigaction act = {.sa_handler = s_on_term};
    sigaction (SIGTERM, &act, NULL);
    printf ("LISTENING\n");
    fflush (stdout);
    char buf[4096];
    for (int waited = 0; !s_stop && waited < s_max_ms; waited += 100) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll (&p, 1, 100) <= 0)
            continue;
        ssize_t n = recv (fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        s_print (buf, argv[2]);
    }
    close (fd);
    unlink (argv[1]);
    return 0;
}
