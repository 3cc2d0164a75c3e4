/*  progress.c - hearth-driver's progress display on a terminal; see
    progress.h.

    Two threads touch the terminal: the caller's, which draws the display
    at its own rate, and this module's, which copies the lines that reach
    the pipe standing in for fd 2.  Both write under one lock, each write
    one write() of the whole erase-and-draw sequence, so the terminal
    never shows half of one and half of the other.  The display is drawn
    without a final newline, the cursor left at the end of its last line:
    erasing is "\r", the cursor up to the display's first line, and
    "erase below" (ESC [ J), which every terminal since the VT100 knows.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "jobfile/progress.h"
#include "libcore/clock.h"

/* Longest line copied whole; a longer one is cut into lines this long. */
enum { s_line_max = 8192 };
/* How often the copying thread looks at its stop flag. */
static const int s_poll_ms = 50;
/* A line without its newline for this long is written with one. */
static const int64_t s_partial_ms = 1000;
/* After progress_destroy(), how long the pipe's last writers may go on. */
static const int64_t s_drain_ms = 1000;
/* The narrowest bar, and the fewest bytes of a stage's name, shown. */
static const int s_min_bar = 10, s_min_name = 3;
/* Width of a terminal that does not say. */
static const int s_default_cols = 80;

struct progress {
    int tty;               /* the terminal (what fd 2 was), close-on-exec */
    int pipe_r;            /* the read end of the pipe that fd 2 now is */
    pthread_t thread;      /* copies the pipe's lines to the terminal */
    pthread_mutex_t lock;  /* guards the terminal and the fields below */
    char *shown;           /* the display on the terminal now, or NULL */
    size_t shown_lines;    /* its lines */
    bool stopping;         /* destroy asked the thread to drain and end */
    char line[s_line_max]; /* bytes read, not yet written (thread only) */
    size_t len;            /* bytes at line */
};

/* ---- the terminal ------------------------------------------------------- */

/* Write all of text; nothing better to do when the terminal fails. */
static void
s_write_all (int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write (fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        text += n;
        len -= (size_t) n;
    }
}

/* Append to out (of size cap, used *used) the erasing of the display. */
static void
s_add_erase (const progress_t *self, char *out, size_t cap, size_t *used)
{
    if (!self->shown)
        return;
    int n = self->shown_lines > 1
                ? snprintf (out + *used, cap - *used, "\r\033[%zuA\033[J",
                            self->shown_lines - 1)
                : snprintf (out + *used, cap - *used, "\r\033[J");
    if (n > 0 && (size_t) n < cap - *used)
        *used += (size_t) n;
}

/* Write line (len bytes, its newline included) above the display. */
static void
s_emit (progress_t *self, const char *line, size_t len)
{
    pthread_mutex_lock (&self->lock);
    size_t extra = self->shown ? strlen (self->shown) : 0;
    size_t cap = len + extra + 32, used = 0;
    char *out = malloc (cap);
    if (out) {
        s_add_erase (self, out, cap, &used);
        memcpy (out + used, line, len);
        used += len;
        memcpy (out + used, self->shown ? self->shown : "", extra);
        s_write_all (self->tty, out, used + extra);
    }
    else { /* no memory: the line at least */
        s_write_all (self->tty, line, len);
    }
    free (out);
    pthread_mutex_unlock (&self->lock);
}

static size_t
s_count_lines (const char *text)
{
    size_t n = 1;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

void
progress_draw (progress_t *self, const char *text)
{
    if (!self || !text)
        return;
    if (!*text) {
        progress_clear (self);
        return;
    }
    pthread_mutex_lock (&self->lock);
    if (!self->shown || strcmp (self->shown, text) != 0) {
        size_t len = strlen (text), cap = len + 32, used = 0;
        char *out = malloc (cap), *copy = strdup (text);
        if (out && copy) {
            s_add_erase (self, out, cap, &used);
            memcpy (out + used, text, len);
            s_write_all (self->tty, out, used + len);
            free (self->shown);
            self->shown = copy;
            self->shown_lines = s_count_lines (text);
            copy = NULL;
        }
        free (out);
        free (copy);
    }
    pthread_mutex_unlock (&self->lock);
}

void
progress_clear (progress_t *self)
{
    if (!self)
        return;
    pthread_mutex_lock (&self->lock);
    char out[64];
    size_t used = 0;
    s_add_erase (self, out, sizeof out, &used);
    s_write_all (self->tty, out, used);
    free (self->shown);
    self->shown = NULL;
    self->shown_lines = 0;
    pthread_mutex_unlock (&self->lock);
}

int
progress_columns (const progress_t *self)
{
    struct winsize ws;
    if (!self || ioctl (self->tty, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0)
        return s_default_cols;
    return ws.ws_col;
}

/* ---- the copying thread ------------------------------------------------- */

/* Write the complete lines read so far; with all, the rest too (with a
   newline of its own, so that the display never starts on its line). */
static void
s_flush_lines (progress_t *self, bool all)
{
    size_t start = 0;
    for (size_t i = 0; i < self->len; i++)
        if (self->line[i] == '\n') {
            s_emit (self, self->line + start, i + 1 - start);
            start = i + 1;
        }
    if (start < self->len && (all || self->len - start == sizeof self->line)) {
        char *tail = self->line + start;
        size_t n = self->len - start;
        if (n == sizeof self->line)
            n--; /* room for the newline */
        char keep = tail[n];
        tail[n] = '\n';
        s_emit (self, tail, n + 1);
        tail[n] = keep;
        start += n;
    }
    memmove (self->line, self->line + start, self->len - start);
    self->len -= start;
}

static bool
s_stopping (progress_t *self)
{
    pthread_mutex_lock (&self->lock);
    bool stopping = self->stopping;
    pthread_mutex_unlock (&self->lock);
    return stopping;
}

static void *
s_copy_thread (void *arg)
{
    progress_t *self = arg;
    int64_t stop_at = 0, partial_since = 0;
    while (true) {
        int64_t now = hearth_mono_ms ();
        if (!stop_at && s_stopping (self))
            stop_at = now + s_drain_ms;
        if (stop_at && now >= stop_at)
            break;
        struct pollfd p = {.fd = self->pipe_r, .events = POLLIN};
        int rc = poll (&p, 1, s_poll_ms);
        if (rc < 0 && errno != EINTR)
            break;
        if (rc <= 0) {
            if (stop_at) /* nothing more from the last writers */
                break;
            if (self->len && now - partial_since >= s_partial_ms)
                s_flush_lines (self, true);
            continue;
        }
        ssize_t n = read (self->pipe_r, self->line + self->len,
                          sizeof self->line - self->len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break; /* every writer is gone */
        bool partial = self->len > 0;
        self->len += (size_t) n;
        s_flush_lines (self, false);
        if (!partial && self->len)
            partial_since = now;
    }
    s_flush_lines (self, true);
    return NULL;
}

/* ---- start and stop ----------------------------------------------------- */

progress_t *
progress_new (void)
{
    const char *term = getenv ("TERM");
    if (!isatty (2) || (term && strcmp (term, "dumb") == 0)) {
        errno = ENOTTY;
        return NULL;
    }
    progress_t *self = calloc (1, sizeof *self);
    int p[2] = {-1, -1};
    if (!self)
        return NULL;
    self->tty = fcntl (2, F_DUPFD_CLOEXEC, 3);
    if (self->tty < 0 || pipe2 (p, O_CLOEXEC) < 0 || dup2 (p[1], 2) < 0)
        goto error;
    close (p[1]);
    p[1] = -1;
    self->pipe_r = p[0];
    pthread_mutex_init (&self->lock, NULL);
    /* Signals are the main thread's business. */
    sigset_t all, old;
    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    int rc = pthread_create (&self->thread, NULL, s_copy_thread, self);
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        dup2 (self->tty, 2);
        pthread_mutex_destroy (&self->lock);
        errno = rc;
        goto error;
    }
    return self;
error:;
    int saved = errno;
    if (p[0] >= 0)
        close (p[0]);
    if (p[1] >= 0)
        close (p[1]);
    if (self->tty >= 0)
        close (self->tty);
    free (self);
    errno = saved;
    return NULL;
}

void
progress_destroy (progress_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    progress_t *self = *self_p;
    progress_clear (self);
    dup2 (self->tty, 2); /* our own writes go straight to the terminal */
    pthread_mutex_lock (&self->lock);
    self->stopping = true;
    pthread_mutex_unlock (&self->lock);
    pthread_join (self->thread, NULL);
    pthread_mutex_destroy (&self->lock);
    close (self->pipe_r);
    close (self->tty);
    free (self->shown);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* ---- the text ----------------------------------------------------------- */

/* "12s", "4m05s", "2h03m". */
static void
s_elapsed (int64_t ms, char *buf, size_t size)
{
    long long s = ms > 0 ? ms / 1000 : 0;
    if (s < 60)
        snprintf (buf, size, "%llds", s);
    else if (s < 3600)
        snprintf (buf, size, "%lldm%02llds", s / 60, s % 60);
    else
        snprintf (buf, size, "%lldh%02lldm", s / 3600, s / 60 % 60);
}

/* The first len bytes of name (a whole character at the end), with its
   control characters as '?', into out. */
static void
s_name (FILE *out, const char *name, size_t len)
{
    while (len > 0 && ((unsigned char) name[len] & 0xc0) == 0x80)
        len--; /* never half of a UTF-8 character */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) name[i];
        fputc (c < ' ' || c == 0x7f ? '?' : c, out);
    }
}

/* One stage's line, narrower than cols. */
static void
s_stage_line (FILE *out, const hearth_stage_progress_t *st, int cols)
{
    char counts[96], tail[64], when[32];
    snprintf (counts, sizeof counts, " (%llu + %llu) / %llu]",
              (unsigned long long) st->finished,
              (unsigned long long) st->running, (unsigned long long) st->total);
    s_elapsed (st->elapsed_ms, when, sizeof when);
    if (st->failed)
        snprintf (tail, sizeof tail, " %s, %llu failed", when,
                  (unsigned long long) st->failed);
    else
        snprintf (tail, sizeof tail, " %s", when);
    const char *name = st->name ? st->name : "";
    long avail = (long) cols - 1 - (long) strlen ("[Stage : ")
                 - (long) strlen (counts) - (long) strlen (tail);
    long name_len = (long) strlen (name), bar = avail - name_len;
    if (bar < s_min_bar) { /* the name gives way first */
        name_len =
            avail - s_min_bar > s_min_name ? avail - s_min_bar : s_min_name;
        if (name_len > (long) strlen (name))
            name_len = (long) strlen (name);
        bar = avail - name_len > 0 ? avail - name_len : 0;
    }
    long filled =
        st->total
            ? (long) ((double) bar * (double) st->finished / (double) st->total)
            : bar;
    fputs ("[Stage ", out);
    s_name (out, name, (size_t) name_len);
    fputs (": ", out);
    for (long i = 0; i < bar; i++)
        fputc (i < filled ? '=' : i == filled ? '>' : ' ', out);
    fputs (counts, out);
    fputs (tail, out);
}

/* Cut every line of text (in place) to fewer than cols bytes, at a
   character's start: only a terminal too narrow for the shortest form
   of a line needs it. */
static void
s_cut_lines (char *text, int cols)
{
    size_t max = cols > 1 ? (size_t) cols - 1 : 1;
    char *out = text;
    for (char *line = text; *line;) {
        size_t len = strcspn (line, "\n"), keep = len;
        if (keep > max) {
            keep = max;
            while (keep > 0 && ((unsigned char) line[keep] & 0xc0) == 0x80)
                keep--;
        }
        memmove (out, line, keep);
        out += keep;
        line += len;
        if (*line == '\n')
            *out++ = *line++;
    }
    *out = '\0';
}

char *
progress_format (const hearth_stage_progress_t *stages, size_t n,
                 size_t nactive, int cols)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream (&text, &size);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc ('\n', out);
        s_stage_line (out, &stages[i], cols);
    }
    if (nactive > n)
        fprintf (out, "%s+%zu more stage%s", n ? "\n" : "", nactive - n,
                 nactive - n > 1 ? "s" : "");
    if (fclose (out) != 0) {
        free (text);
        return NULL;
    }
    s_cut_lines (text, cols);
    return text;
}
