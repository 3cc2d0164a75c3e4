/*  test_notify.c - the service manager's notifications (notify.c): with
    NOTIFY_SOCKET naming a unix datagram socket the test listens on, the
    state arrives there, the variable is gone from the environment (no
    child inherits it) and later calls still reach the socket; without
    it, nothing is sent and nothing fails; a socket nobody listens on is
    an error with errno. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/notify.h"
#include "tests/unit/testutil.h"

static char s_path[108];

/* A unix datagram socket bound at a fresh path (s_path). */
static int
s_listen (void)
{
    snprintf (s_path, sizeof s_path, "/tmp/test_notify.%d.sock",
              (int) getpid ());
    unlink (s_path);
    int fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true (fd >= 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf (sa.sun_path, sizeof sa.sun_path, "%s", s_path);
    assert_int_equal (bind (fd, (struct sockaddr *) &sa, sizeof sa), 0);
    return fd;
}

/* The next datagram on fd, within a second, into buf. */
static const char *
s_recv (int fd, char *buf, size_t size)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    assert_int_equal (poll (&p, 1, 1000), 1);
    ssize_t n = recv (fd, buf, size - 1, 0);
    assert_true (n > 0);
    buf[n] = '\0';
    return buf;
}

static void
test_ready_and_stopping (void **state)
{
    (void) state;
    char buf[512];
    int fd = s_listen ();
    setenv ("NOTIFY_SOCKET", s_path, 1);
    hearth_notify_init ();
    assert_null (getenv ("NOTIFY_SOCKET"));
    assert_int_equal (hearth_notify ("READY=1\nSTATUS=up"), 1);
    assert_string_equal (s_recv (fd, buf, sizeof buf), "READY=1\nSTATUS=up");
    assert_null (getenv ("NOTIFY_SOCKET"));
    assert_int_equal (hearth_notifyf ("STATUS=%d workers", 3), 1);
    assert_string_equal (s_recv (fd, buf, sizeof buf), "STATUS=3 workers");
    assert_int_equal (hearth_notify ("STOPPING=1"), 1);
    assert_string_equal (s_recv (fd, buf, sizeof buf), "STOPPING=1");
    /* nobody listens any more: an error, with errno */
    close (fd);
    unlink (s_path);
    errno = 0;
    assert_int_equal (hearth_notify ("STATUS=gone"), -1);
    assert_int_not_equal (errno, 0);
    /* too long a state */
    char big[2048];
    memset (big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal (hearth_notifyf ("STATUS=%s", big), -1);
    assert_int_equal (errno, EMSGSIZE);
}

static void
test_without_a_manager (void **state)
{
    (void) state;
    unsetenv ("NOTIFY_SOCKET");
    hearth_notify_init ();
    assert_int_equal (hearth_notify ("READY=1"), 0);
    assert_null (getenv ("NOTIFY_SOCKET"));
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_ready_and_stopping),
        cmocka_unit_test (test_without_a_manager),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
