/*  devices.c - the worker's custom resources: --resource values parsed,
    --resource-discovery scripts run, once, at start (devices.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/loop.h"
#include "libcore/spawn.h"
#include "worker/devices.h"

/* A script's stdout kept, at most (Spark's JSON of a few addresses). */
static const size_t s_max_output = 64 * 1024;
/* What an error quotes of a script's output, at most. */
static const int s_quote_max = 200;

/* One pipe being read into a buffer. */
typedef struct {
    int fd;      /* read end, or -1 once at EOF */
    char *buf;   /* what was read, NUL-terminated (owned) */
    size_t len;  /* bytes in buf */
    bool to_log; /* stderr: complete lines go to the log */
} s_pipe_t;

/* The worker's log gets each complete line of a script's stderr. */
static void
s_log_lines (s_pipe_t *p, const char *script, bool all)
{
    char *nl, *start = p->buf;
    while ((nl = memchr (start, '\n', p->len - (size_t) (start - p->buf)))) {
        *nl = '\0';
        log_info ("discovery script %s: %s", script, start);
        start = nl + 1;
    }
    size_t rest = p->len - (size_t) (start - p->buf);
    if (all && rest)
        log_info ("discovery script %s: %.*s", script, (int) rest, start);
    memmove (p->buf, start, all ? 0 : rest);
    p->len = all ? 0 : rest;
    p->buf[p->len] = '\0';
}

/* Read what is there; 0, or -1 at EOF or error (fd closed). */
static int
s_pipe_read (s_pipe_t *p, const char *script)
{
    char chunk[4096];
    ssize_t n = read (p->fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0) {
        close (p->fd);
        p->fd = -1;
        return -1;
    }
    size_t keep =
        p->len + (size_t) n > s_max_output ? s_max_output - p->len : (size_t) n;
    memcpy (p->buf + p->len, chunk, keep);
    p->len += keep;
    p->buf[p->len] = '\0';
    if (p->to_log)
        s_log_lines (p, script, p->len == s_max_output);
    return 0;
}

/* Wait for both pipes' EOF until deadline; false on a timeout. */
static bool
s_drain (s_pipe_t *out, s_pipe_t *errp, const char *script, int64_t deadline)
{
    while (out->fd >= 0 || errp->fd >= 0) {
        struct pollfd fds[2] = {{out->fd, POLLIN, 0}, {errp->fd, POLLIN, 0}};
        int64_t left = deadline - hearth_mono_ms ();
        if (left <= 0)
            return false;
        if (poll (fds, 2, (int) left) < 0 && errno != EINTR)
            return false;
        if (out->fd >= 0 && fds[0].revents)
            s_pipe_read (out, script);
        if (errp->fd >= 0 && fds[1].revents)
            s_pipe_read (errp, script);
    }
    return true;
}

/* A script's exit handler: nothing to do, devices_gather waits for it
   (hearth_loop_child_end) before the loop runs. */
static int
s_on_exit (hearth_loop_t *loop, const hearth_loop_exit_t *exit, void *arg)
{
    (void) loop;
    (void) exit;
    (void) arg;
    return 0;
}

/* Wait for the watched script until deadline, SIGKILL to its group
   then (with drained false: at once, its pipes are still held), and
   reap it.  Its wait status, 0 when unknown (judged by its output), or
   -1 when it had to be killed. */
static int
s_wait (hearth_loop_t *loop, pid_t pid, bool drained, int64_t deadline)
{
    int64_t left = deadline - hearth_mono_ms ();
    hearth_loop_exit_t x = {.status = 0};
    if (!drained) /* its group too, even if the script itself has gone */
        hearth_loop_child_signal (loop, pid, SIGKILL);
    hearth_loop_child_end (loop, pid, drained && left > 0 ? left : 0, &x);
    if (!drained || x.killed)
        return -1;
    return x.status < 0 ? 0 : x.status;
}

static int
s_pipes (int out[2], int errp[2])
{
    out[0] = out[1] = errp[0] = errp[1] = -1;
    if (pipe2 (out, O_CLOEXEC) == 0 && pipe2 (errp, O_CLOEXEC) == 0)
        return 0;
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0)
            close (out[i]);
        if (errp[i] >= 0)
            close (errp[i]);
    }
    return -1;
}

/* Run script; its stdout (malloc'ed) in *output.  0, or -1 with err. */
static int
s_run (hearth_loop_t *loop, const char *script, int64_t timeout_ms,
       char **output, hearth_error_t *err)
{
    int out[2], errp[2];
    if (s_pipes (out, errp) < 0)
        return hearth_errprintf (err, "discovery script %s: pipe: %s", script,
                                 strerror (errno));
    const char *argv[] = {script, NULL};
    hearth_spawn_opts_t o = {.argv = argv,
                             .stdin_fd = HEARTH_SPAWN_DEVNULL,
                             .stdout_fd = out[1],
                             .stderr_fd = errp[1],
                             .new_pgroup = true};
    hearth_error_t serr;
    pid_t pid = hearth_loop_spawn (loop, &o, true, s_on_exit, NULL, &serr);
    close (out[1]);
    close (errp[1]);
    s_pipe_t po = {out[0], calloc (1, s_max_output + 1), 0, false};
    s_pipe_t pe = {errp[0], calloc (1, s_max_output + 1), 0, true};
    int rc = 0, status = 0;
    if (pid < 0)
        rc = hearth_errprintf (err, "discovery script %s: %s", script,
                               serr.text);
    else if (!po.buf || !pe.buf)
        rc = hearth_errprintf (err, "out of memory");
    int64_t deadline = hearth_mono_ms () + timeout_ms;
    if (pid > 0) {
        bool drained = rc == 0 && s_drain (&po, &pe, script, deadline);
        status = s_wait (loop, pid, drained, deadline);
    }
    if (pid > 0 && rc == 0 && status < 0)
        rc = hearth_errprintf (
            err, "discovery script %s did not finish within %lld ms%s%.*s",
            script, (long long) timeout_ms, po.len ? "; it printed: " : "",
            s_quote_max, po.buf);
    if (pe.buf && pe.len)
        s_log_lines (&pe, script, true);
    char why[64];
    if (rc == 0 && !(WIFEXITED (status) && WEXITSTATUS (status) == 0))
        rc = hearth_errprintf (
            err, "discovery script %s %s%s%.*s", script,
            hearth_wait_status_text (status, why, sizeof why),
            po.len ? "; it printed: " : "", s_quote_max, po.buf);
    for (s_pipe_t *p = &po; p; p = p == &po ? &pe : NULL)
        if (p->fd >= 0)
            close (p->fd);
    free (pe.buf);
    if (rc < 0)
        free (po.buf);
    else
        *output = po.buf;
    return rc;
}

/* One --resource-discovery NAME=SCRIPT value. */
static int
s_discover (hearth_loop_t *loop, hearth_resources_t *r, const char *spec,
            int64_t timeout_ms, hearth_error_t *err)
{
    const char *eq = strchr (spec, '=');
    char name[HEARTH_RESOURCE_NAME_MAX + 1];
    if (!eq || eq == spec || (size_t) (eq - spec) > HEARTH_RESOURCE_NAME_MAX
        || !eq[1])
        return hearth_errprintf (err,
                                 "bad --resource-discovery '%s': expected "
                                 "NAME=SCRIPT",
                                 spec);
    snprintf (name, sizeof name, "%.*s", (int) (eq - spec), spec);
    if (!hearth_resource_name_valid (name))
        return hearth_errprintf (err, "bad --resource-discovery '%s': bad name",
                                 spec);
    if (hearth_resources_find (r, name))
        return hearth_errprintf (err, "resource %s given twice", name);
    char *output = NULL;
    hearth_error_t perr;
    if (s_run (loop, eq + 1, timeout_ms, &output, err) < 0)
        return -1;
    size_t len = strlen (output);
    while (len && strchr (" \t\r\n", output[len - 1]))
        output[--len] = '\0'; /* quoted in an error: no trailing newline */
    int rc = hearth_resources_add_discovered (r, name, output, &perr);
    if (rc < 0)
        hearth_errprintf (err, "discovery script %s: %s", eq + 1, perr.text);
    free (output);
    return rc;
}

/* A list from the environment or a file comes split at commas:
   "gpu=0,1" as "gpu=0" and "1".  An item without '=' continues the one
   before it (an address holds no '='); ';' separates items too. */
static char **
s_items (const hearth_conf_t *conf, const char *name, size_t *n)
{
    const char *const *items;
    size_t count = hearth_conf_list (conf, name, &items), len = 1;
    for (size_t i = 0; i < count; i++)
        len += strlen (items[i]) + 1;
    char *joined = malloc (len), *o = joined;
    char **out = calloc (len + 1, sizeof *out);
    *n = 0;
    if (!joined || !out) {
        free (joined);
        free (out);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        size_t head = strcspn (items[i], ";"); /* its first item's part */
        bool cont = i > 0 && !memchr (items[i], '=', head);
        o += sprintf (o, "%s%s", i == 0 ? "" : cont ? "," : ";", items[i]);
    }
    *o = '\0';
    char *save = NULL;
    for (char *t = strtok_r (joined, ";", &save); t;
         t = strtok_r (NULL, ";", &save))
        out[(*n)++] = t;
    if (*n == 0)
        free (joined);
    return out;
}

static void
s_items_free (char **items, size_t n)
{
    if (items && n)
        free (items[0]);
    free (items);
}

int
devices_gather (hearth_loop_t *loop, const hearth_conf_t *conf,
                int64_t timeout_ms, hearth_resources_t *out,
                hearth_error_t *err)
{
    hearth_resources_t r = {0};
    size_t ns = 0, nd = 0;
    char **specs = s_items (conf, "resource", &ns);
    char **scripts = s_items (conf, "resource-discovery", &nd);
    int rc = specs && scripts ? 0 : hearth_errprintf (err, "out of memory");
    hearth_error_t perr;
    for (size_t i = 0; rc == 0 && i < ns; i++)
        if (hearth_resources_add_spec (&r, specs[i], &perr) < 0)
            rc = hearth_errprintf (err, "bad --resource '%s': %s", specs[i],
                                   perr.text);
    for (size_t i = 0; rc == 0 && i < nd; i++)
        rc = s_discover (loop, &r, scripts[i], timeout_ms, err);
    s_items_free (specs, ns);
    s_items_free (scripts, nd);
    if (rc < 0)
        hearth_resources_clear (&r);
    else
        *out = r;
    return rc;
}

bool
devices_contains (const hearth_resources_t *have,
                  const hearth_resources_t *want)
{
    for (size_t i = 0; i < want->n; i++) {
        const hearth_resource_t *h =
            hearth_resources_find (have, want->v[i].name);
        for (size_t j = 0; j < want->v[i].naddrs; j++) {
            bool found = false;
            for (size_t k = 0; h && !found && k < h->naddrs; k++)
                found = strcmp (h->addrs[k], want->v[i].addrs[j]) == 0;
            if (!found)
                return false;
        }
    }
    return true;
}
