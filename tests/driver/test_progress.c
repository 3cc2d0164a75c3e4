/*  test_progress.c - hearth-driver's progress display (jobfile/progress.c):
    the text of its lines at every width, and, on a pseudo-terminal, that a
    line written to stderr while the display is shown erases it, comes out
    whole on a line of its own, and has the display drawn again below it.
*/
#include "config.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobfile/progress.h"
#include "tests/unit/testutil.h"

static hearth_stage_progress_t
s_stage (const char *name, uint64_t finished, uint64_t running, uint64_t total,
         uint64_t failed, int64_t elapsed_ms)
{
    return (hearth_stage_progress_t){.name = name,
                                     .finished = finished,
                                     .running = running,
                                     .total = total,
                                     .failed = failed,
                                     .elapsed_ms = elapsed_ms};
}

/* Every line of text is narrower than cols. */
static void
s_assert_narrower (const char *text, int cols)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn (line, "\n");
        if ((int) len >= cols)
            fail_msg ("line '%.*s' is %zu wide for %d columns", (int) len, line,
                      len, cols);
        line += len + (line[len] == '\n');
    }
}

static void
test_one_stage (void **state)
{
    (void) state;
    hearth_stage_progress_t st = s_stage ("map", 460, 2, 2000, 3, 65000);
    char *text = progress_format (&st, 1, 1, 80);
    /* 79 columns: 12 + 33 of bar (460/2000 of it is 7) + 18 + 16 */
    assert_string_equal (text, "[Stage map: =======>                         "
                               " (460 + 2) / 2000] 1m05s, 3 failed");
    assert_int_equal (strlen (text), 79);
    free (text);
}

static void
test_no_failures_no_count (void **state)
{
    (void) state;
    hearth_stage_progress_t st = s_stage ("sum", 0, 1, 1, 0, 4000);
    char *text = progress_format (&st, 1, 1, 40);
    assert_string_equal (text, "[Stage sum: >           (0 + 1) / 1] 4s");
    free (text);
}

static void
test_finished_is_full (void **state)
{
    (void) state;
    hearth_stage_progress_t st = s_stage ("s", 10, 0, 10, 0, 0);
    char *text = progress_format (&st, 1, 1, 40);
    assert_string_equal (text, "[Stage s: =========== (10 + 0) / 10] 0s");
    free (text);
}

static void
test_more_stages (void **state)
{
    (void) state;
    hearth_stage_progress_t st[3] = {s_stage ("a", 1, 2, 4, 0, 0),
                                     s_stage ("b", 0, 0, 4, 0, 0),
                                     s_stage ("c", 0, 0, 4, 0, 0)};
    char *text = progress_format (st, 3, 5, 60);
    assert_int_equal (strncmp (text, "[Stage a: ", 10), 0);
    assert_contains (text, "\n[Stage b: ");
    assert_contains (text, "\n[Stage c: ");
    const char *last = strrchr (text, '\n');
    assert_string_equal (last, "\n+2 more stages");
    free (text);
    text = progress_format (st, 3, 4, 60);
    assert_string_equal (strrchr (text, '\n'), "\n+1 more stage");
    free (text);
    text = progress_format (st, 0, 0, 60);
    assert_string_equal (text, "");
    free (text);
}

static void
test_elapsed (void **state)
{
    (void) state;
    static const struct {
        int64_t ms;
        const char *text;
    } cases[] = {{0, "] 0s"},           {-5, "] 0s"},
                 {59999, "] 59s"},      {60000, "] 1m00s"},
                 {3599000, "] 59m59s"}, {3600000, "] 1h00m"},
                 {90061000, "] 25h01m"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hearth_stage_progress_t st = s_stage ("x", 0, 0, 1, 0, cases[i].ms);
        char *text = progress_format (&st, 1, 1, 80);
        size_t n = strlen (text), m = strlen (cases[i].text);
        assert_true (n >= m);
        assert_string_equal (text + n - m, cases[i].text);
        free (text);
    }
}

/* A long name gives way to the bar; a narrow terminal cuts the line. */
static void
test_narrow (void **state)
{
    (void) state;
    const char *name = "a-stage-with-a-really-very-long-name-indeed";
    hearth_stage_progress_t st = s_stage (name, 5, 1, 10, 2, 1000);
    for (int cols = 1; cols <= 120; cols++) {
        char *text = progress_format (&st, 1, 2, cols);
        assert_non_null (text);
        s_assert_narrower (text, cols > 1 ? cols : 2);
        if (cols >= 60) { /* room for the whole form */
            assert_contains (text, "[Stage a-st");
            assert_contains (text, "==>");
            assert_contains (text, " (5 + 1) / 10] 1s, 2 failed");
        }
        free (text);
    }
    char *text = progress_format (&st, 1, 1, 60);
    /* the name cut, the bar at its narrowest (10) */
    assert_string_equal (text, "[Stage a-stage-with-: =====>    "
                               " (5 + 1) / 10] 1s, 2 failed");
    free (text);
}

static void
test_name_sanitized (void **state)
{
    (void) state;
    hearth_stage_progress_t st = s_stage ("a\033[2Jb\nc", 0, 0, 1, 0, 0);
    char *text = progress_format (&st, 1, 1, 80);
    assert_int_equal (strncmp (text, "[Stage a?[2Jb?c: ", 17), 0);
    assert_null (strchr (text, '\033'));
    assert_null (strchr (text, '\n'));
    free (text);
    /* "é" is two bytes: a cut never leaves half of it */
    hearth_stage_progress_t u = s_stage (
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 0, 0, 1, 0, 0);
    for (int cols = 30; cols < 50; cols++) {
        text = progress_format (&u, 1, 1, cols);
        const char *colon = strstr (text, ": ");
        assert_non_null (colon);
        assert_int_equal ((colon - (text + 7)) % 2, 0);
        free (text);
    }
}

/* ---- on a pseudo-terminal ------------------------------------------------ */

static void
s_write (int fd, const char *text)
{
    size_t len = strlen (text);
    assert_int_equal (write (fd, text, len), (ssize_t) len);
}

/* What the terminal received within ms, appended to buf. */
static void
s_read_for (int fd, char *buf, size_t size, int ms)
{
    size_t len = strlen (buf);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (len + 1 < size && poll (&p, 1, ms) > 0) {
        ssize_t n = read (fd, buf + len, size - 1 - len);
        if (n <= 0)
            break;
        len += (size_t) n;
        buf[len] = '\0';
    }
}

static void
test_lines_pass_above (void **state)
{
    (void) state;
    int master, slave;
    if (openpty (&master, &slave, NULL, NULL, NULL) < 0)
        skip ();
    struct termios tio;
    tcgetattr (slave, &tio);
    cfmakeraw (&tio); /* bytes as written: no \n to \r\n */
    tcsetattr (slave, TCSANOW, &tio);
    int saved = dup (2);
    dup2 (slave, 2);
    progress_t *bar = progress_new ();
    assert_non_null (bar);
    assert_int_equal (isatty (2), 0); /* fd 2 is the pipe now */
    progress_draw (bar, "BAR-1\nBAR-2");
    progress_draw (bar, "BAR-1\nBAR-2"); /* the same: not drawn again */
    char got[4096] = "";
    s_read_for (master, got, sizeof got, 200);
    assert_string_equal (got, "BAR-1\nBAR-2");
    got[0] = '\0';
    /* a line written in two pieces comes out whole, above the display */
    s_write (2, "hello ");
    usleep (20000);
    s_write (2, "world\n");
    s_read_for (master, got, sizeof got, 300);
    assert_string_equal (got, "\r\033[1A\033[Jhello world\nBAR-1\nBAR-2");
    got[0] = '\0';
    progress_draw (bar, "NEW");
    s_read_for (master, got, sizeof got, 200);
    assert_string_equal (got, "\r\033[1A\033[JNEW");
    got[0] = '\0';
    /* a line without its newline is written with one, after a while */
    s_write (2, "no newline");
    s_read_for (master, got, sizeof got, 1500);
    assert_string_equal (got, "\r\033[Jno newline\nNEW");
    got[0] = '\0';
    progress_clear (bar);
    s_write (2, "after\n");
    s_read_for (master, got, sizeof got, 300);
    assert_string_equal (got, "\r\033[Jafter\n");
    progress_destroy (&bar);
    assert_null (bar);
    assert_int_equal (isatty (2), 1); /* the terminal again */
    dup2 (saved, 2);
    close (saved);
    close (slave);
    close (master);
}

static void
test_not_a_terminal (void **state)
{
    (void) state;
    int saved = dup (2);
    int fd = open ("/dev/null", O_WRONLY);
    dup2 (fd, 2);
    progress_t *bar = progress_new ();
    dup2 (saved, 2);
    close (saved);
    close (fd);
    assert_null (bar);
    progress_destroy (&bar);
    progress_draw (NULL, "x");
    progress_clear (NULL);
    assert_int_equal (progress_columns (NULL), 80);
}

int
main (void)
{
    alarm (60);
    setenv ("TERM", "xterm", 1); /* whatever the shell of make check has */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_one_stage),
        cmocka_unit_test (test_no_failures_no_count),
        cmocka_unit_test (test_finished_is_full),
        cmocka_unit_test (test_more_stages),
        cmocka_unit_test (test_elapsed),
        cmocka_unit_test (test_narrow),
        cmocka_unit_test (test_name_sanitized),
        cmocka_unit_test (test_lines_pass_above),
        cmocka_unit_test (test_not_a_terminal),
    };
    return cmocka_run_group_tests_name ("progress", tests, NULL, NULL);
}
