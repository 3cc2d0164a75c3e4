/*  flood.c - many idle or hostile TCP connections, for the load tests:

        flood --to HOST:PORT --count N [--bytes B] [--seed S] [--hold-ms MS]

    opens N TCP connections to HOST:PORT (IPv4), sends B bytes of seeded
    random data on each right after it connects (0, the default: nothing
    at all), and keeps them open for MS milliseconds (default 10000) or
    until SIGTERM or SIGINT, then closes them.  A peer that closes a
    connection is not an error: that is what a server should do with
    garbage.  A connect that takes more than 3.5 s fails (the kernel sends
    the SYN again at 1 s and 3 s, past a listen queue full for a moment),
    and after 10 failures in a row the rest are not tried (a server whose
    listen queue stays full answers no SYN).  Prints "OPEN n FAILED m"
    once every connection was tried (m: connects that failed or were not
    tried, with the first error), then "CLOSED".  Exits 0, or 2 on bad
    usage.
*/
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Bytes written per write() of the random data. */
enum { s_chunk = 4096 };
/* How long one connect may take: a server whose listen queue is full
   answers no SYN, and a blocking connect would wait for minutes. */
static const int s_connect_timeout_ms = 3500;
/* Failed connects in a row after which the rest are not tried: the
   server takes no more. */
static const long s_max_failures_in_a_row = 10;

static volatile sig_atomic_t s_stop;

static void
s_on_signal (int sig)
{
    (void) sig;
    s_stop = 1;
}

/* xorshift64*: the same bytes for the same seed. */
static uint8_t
s_next (uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return (uint8_t) ((*x * 0x2545F4914F6CDD1DULL) >> 56);
}

static int
s_usage (const char *why)
{
    fprintf (stderr,
             "flood: %s\nusage: flood --to HOST:PORT --count N [--bytes B] "
             "[--seed S] [--hold-ms MS]\n",
             why);
    return 2;
}

static int64_t
s_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write n random bytes to fd; a peer that hangs up ends it early. */
static void
s_send_random (int fd, long n, uint64_t *rng)
{
    uint8_t buf[s_chunk];
    while (n > 0) {
        size_t len = n < s_chunk ? (size_t) n : s_chunk;
        for (size_t i = 0; i < len; i++)
            buf[i] = s_next (rng);
        if (write (fd, buf, len) < 0)
            return;
        n -= (long) len;
    }
}

/* Connect fd to addr within s_connect_timeout_ms; -1 with errno. */
static int
s_connect (int fd, const struct sockaddr_in *addr)
{
    if (connect (fd, (const struct sockaddr *) addr, sizeof *addr) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return -1;
    struct pollfd p = {fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;
    int n = poll (&p, 1, s_connect_timeout_ms);
    if (n == 0)
        errno = ETIMEDOUT;
    if (n <= 0)
        return -1;
    if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        return -1;
    errno = err;
    return err ? -1 : 0;
}

/* One connection to addr, with its bytes sent (as many as the socket
   takes at once); -1 with errno. */
static int
s_open (const struct sockaddr_in *addr, long bytes, uint64_t *rng)
{
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (s_connect (fd, addr) < 0) {
        int saved = errno;
        close (fd);
        errno = saved;
        return -1;
    }
    s_send_random (fd, bytes, rng);
    return fd;
}

/* Parse HOST:PORT (a numeric IPv4 address) into addr; -1 if it is not. */
static int
s_parse_to (const char *to, struct sockaddr_in *addr)
{
    char host[64];
    const char *colon = strrchr (to, ':');
    if (!colon || colon - to >= (long) sizeof host)
        return -1;
    snprintf (host, sizeof host, "%.*s", (int) (colon - to), to);
    char *end;
    long port = strtol (colon + 1, &end, 10);
    memset (addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_port = htons ((uint16_t) port);
    if (*end || port < 1 || port > 65535
        || inet_pton (AF_INET, host, &addr->sin_addr) != 1)
        return -1;
    return 0;
}

int
main (int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", 1, NULL, 't'},      {"count", 1, NULL, 'n'},
        {"bytes", 1, NULL, 'b'},   {"seed", 1, NULL, 's'},
        {"hold-ms", 1, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *to = NULL;
    long count = -1, bytes = 0, hold_ms = 10000;
    uint64_t rng = 1;
    int c;
    while ((c = getopt_long (argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            to = optarg;
            break;
        case 'n':
            count = strtol (optarg, NULL, 10);
            break;
        case 'b':
            bytes = strtol (optarg, NULL, 10);
            break;
        case 's':
            rng = strtoull (optarg, NULL, 10) | 1;
            break;
        case 'h':
            hold_ms = strtol (optarg, NULL, 10);
            break;
        default:
            return s_usage ("unknown option");
        }
    }
    struct sockaddr_in addr;
    if (!to || s_parse_to (to, &addr) < 0)
        return s_usage ("--to HOST:PORT (a numeric IPv4 address) is needed");
    if (count < 1 || count > 1000000 || bytes < 0 || hold_ms < 0)
        return s_usage ("--count 1..1000000, --bytes and --hold-ms >= 0");
    signal (SIGPIPE, SIG_IGN);
    signal (SIGTERM, s_on_signal);
    signal (SIGINT, s_on_signal);
    int *fds = calloc ((size_t) count, sizeof *fds);
    if (!fds)
        return s_usage ("out of memory");
    long open = 0, failed = 0, in_a_row = 0;
    int first_errno = 0;
    for (long i = 0; i < count && !s_stop; i++) {
        int fd = in_a_row < s_max_failures_in_a_row
                     ? s_open (&addr, bytes, &rng)
                     : -1;
        in_a_row = fd >= 0 ? 0 : in_a_row + 1;
        if (fd >= 0)
            fds[open++] = fd;
        else if (failed++ == 0)
            first_errno = errno;
    }
    printf ("OPEN %ld FAILED %ld%s%s\n", open, failed, failed ? " " : "",
            failed ? strerror (first_errno) : "");
    fflush (stdout);
    for (int64_t end = s_now_ms () + hold_ms; !s_stop && s_now_ms () < end;)
        poll (NULL, 0, 50);
    for (long i = 0; i < open; i++)
        close (fds[i]);
    free (fds);
    printf ("CLOSED\n");
    return 0;
}
