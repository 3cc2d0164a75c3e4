/*  test_peer.c - a TCP server that does not speak ZeroMQ, for the tests of
    what a driver says when its master is not one (test-connect-errors.sh).

    test-peer PORT_FILE [TEXT]

    Listens on 127.0.0.1, an ephemeral port written to PORT_FILE, and
    writes TEXT (default: an HTTP error) to every connection, then keeps
    it open until the peer closes it (as a server that waits for a
    request would).  Runs until killed.
*/
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections held open at most; older ones are closed. */
enum { s_max_conns = 64 };

static int
s_listen (const char *port_file)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind (fd, (struct sockaddr *) &a, sizeof a) < 0
        || listen (fd, 16) < 0
        || getsockname (fd, (struct sockaddr *) &a, &len) < 0) {
        perror ("test-peer");
        return -1;
    }
    FILE *f = fopen (port_file, "w");
    if (!f || fprintf (f, "%d\n", ntohs (a.sin_port)) < 0 || fclose (f) != 0) {
        perror (port_file);
        return -1;
    }
    return fd;
}

int
main (int argc, char **argv)
{
    if (argc < 2) {
        fprintf (stderr, "usage: test-peer PORT_FILE [TEXT]\n");
        return 2;
    }
    const char *text =
        argc > 2 ? argv[2]
                 : "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    int lfd = s_listen (argv[1]);
    if (lfd < 0)
        return 1;
    struct pollfd p[1 + s_max_conns];
    size_t n = 0, oldest = 0;
    for (;;) {
        p[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
        if (poll (p, 1 + n, -1) < 0 && errno != EINTR)
            return 1;
        for (size_t i = 1; i <= n; i++)
            if (p[i].revents) { /* the peer wrote or closed: drop it */
                char buf[4096];
                if (read (p[i].fd, buf, sizeof buf) <= 0) {
                    close (p[i].fd);
                    p[i--] = p[n--];
                }
            }
        if (!(p[0].revents & POLLIN))
            continue;
        int c = accept (lfd, NULL, NULL);
        if (c < 0)
            continue;
        if (write (c, text, strlen (text)) < 0) {
            close (c);
            continue;
        }
        if (n == s_max_conns) {
            close (p[1 + oldest].fd);
            p[1 + oldest] = (struct pollfd){.fd = c, .events = POLLIN};
            oldest = (oldest + 1) % s_max_conns;
        }
        else
            p[++n] = (struct pollfd){.fd = c, .events = POLLIN};
    }
}
