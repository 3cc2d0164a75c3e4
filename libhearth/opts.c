/*  opts.c - a driver's settings: the one option table of libhearth,
    hearth-driver and (as environment variables) hearth-submit, read from
    flags, HEARTH_* variables, --conf files and the defaults file
    (conf.h), and the check of a tcp:// master URL. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "libcore/ctlchars.h"
#include "libcore/labels.h"
#include "libcore/log.h"
#include "libcore/masters.h"
#include "libcore/resources.h"
#include "libcore/shuffleopts.h"
#include "libcore/sock.h"
#include "libcore/units.h"
#include "libhearth/dynalloc_opts.h"
#include "libhearth/internal.h"
#include "libhearth/local.h"

struct hearth_opts {
    hearth_conf_t *conf; /* the settings */
};

static const hearth_opt_t s_options[] = {
    {"master", HEARTH_OPT_STR, "local[*]", "URL",
     "local[N], local[*], local[N,F], local[*,F] (F attempts a task), "
     "local-cluster[W,C,M] or tcp://HOST:PORT (the masters: a "
     "comma-separated list of them, tcp:// optional after the first)"},
    {"name", HEARTH_OPT_LABEL, NULL, "NAME",
     "the application's name (no control characters; default: the job's, or "
     "the program's)"},
    {"total-executor-cores", HEARTH_OPT_INT, NULL, "N",
     "cores for the whole application (default: all there are)", 1, 65536},
    {"executor-cores", HEARTH_OPT_INT, NULL, "N",
     "cores per executor (default: all of a worker's)", 1, 65536},
    {"dynamic-allocation", HEARTH_OPT_BOOL, "false", "",
     "cluster modes: grow and shrink the executors with the backlog "
     "(docs/cluster.md \"Dynamic allocation\"; ignored in local[N])"},
    {"min-executors", HEARTH_OPT_INT, "0", "N",
     "dynamic allocation: never fewer executors", 0, 65536},
    {"max-executors", HEARTH_OPT_INT, NULL, "N",
     "dynamic allocation: never more executors (default: unbounded)", 1, 65536},
    {"initial-executors", HEARTH_OPT_INT, NULL, "N",
     "dynamic allocation: executors to start with (default: "
     "--min-executors)",
     0, 65536},
    {"scheduler-backlog-timeout", HEARTH_OPT_DURATION, "1s", "TIME",
     "dynamic allocation: tasks waiting this long ask for more executors"},
    {"sustained-scheduler-backlog-timeout", HEARTH_OPT_DURATION, "1s", "TIME",
     "dynamic allocation: then again each TIME they still wait, doubling "
     "the number asked"},
    {"executor-idle-timeout", HEARTH_OPT_DURATION, "60s", "TIME",
     "dynamic allocation: an executor idle this long is given back"},
    {"executor-memory", HEARTH_OPT_MEMORY, "1G", "SIZE",
     "memory per executor (plain numbers are MiB)"},
    {"executor-resource", HEARTH_OPT_LIST, NULL, "NAME=N",
     "N addresses of custom resource NAME (gpu, fpga...) per executor: "
     "executors go only where a worker has them free (repeatable; "
     "docs/resources.md)"},
    {"executor-label", HEARTH_OPT_LIST, NULL, "KEY=VALUE",
     "executors only on workers carrying this label (their --label; "
     "repeatable: all of them); refused at submit when no worker ever "
     "had them (docs/driver.md, Locality)"},
    {"worker-resource", HEARTH_OPT_LIST, NULL, "NAME=ADDR[,ADDR...]",
     "local-cluster: addresses of a custom resource every local worker "
     "offers (its --resource; repeatable)"},
    {"worker-resource-discovery", HEARTH_OPT_LIST, NULL, "NAME=SCRIPT",
     "local-cluster: a discovery script every local worker runs (its "
     "--resource-discovery; repeatable)"},
    {"lib", HEARTH_OPT_LIST, NULL, "FILE",
     "a shared library of function tasks to ship (repeatable)"},
    {"files", HEARTH_OPT_LIST, NULL, "FILE[,FILE...]",
     "files to put in every executor's work dir, where command tasks read "
     "them by base name (comma-separated, repeatable)"},
    {"broadcast", HEARTH_OPT_LIST, NULL, "NAME=FILE",
     "a file every task finds, read-only, at $HEARTH_BROADCAST_NAME, "
     "fetched once per node (repeatable)"},
    {"max-failures", HEARTH_OPT_INT, "4", "N",
     "failed attempts of one task before its job fails", 1, 1000},
    {"max-lost", HEARTH_OPT_INT, "8", "N",
     "attempts of one task lost with their executor before the job fails", 0,
     1000},
    {"scheduler-mode", HEARTH_OPT_STR, "FIFO", "MODE",
     "FIFO or FAIR, between concurrent jobs"},
    {"speculation", HEARTH_OPT_BOOL, "false", "",
     "re-launch straggling tasks elsewhere; the first to finish wins"},
    {"speculation-multiplier", HEARTH_OPT_STR, "1.5", "X",
     "a straggler runs longer than X times the stage's median"},
    {"speculation-quantile", HEARTH_OPT_STR, "0.75", "Q",
     "fraction of a stage finished before stragglers are looked for"},
    {"speculation-min", HEARTH_OPT_DURATION, "100ms", "TIME",
     "never speculate on tasks shorter than this"},
    {"locality-wait", HEARTH_OPT_DURATION, "3s", "TIME",
     "how long a stage waits for an executor where its tasks would rather "
     "run before it takes one of the rack, then any (0: no wait)"},
    {"reduce-locality", HEARTH_OPT_BOOL, "true", "",
     "a task reading a shuffle prefers the workers holding at least 20% of "
     "its input's bytes"},
    {"task-prefetch", HEARTH_OPT_INT, "128", "N",
     "most tasks queued ahead per executor core (short tasks)", 0, 100000},
    {"heartbeat-interval", HEARTH_OPT_DURATION, "1s", "TIME",
     "heartbeat interval with executors and the master"},
    {"heartbeat-liveness", HEARTH_OPT_INT, "5", "N",
     "missed intervals before a peer counts as gone", 1, 1000},
    {"register-timeout", HEARTH_OPT_DURATION, "30s", "TIME",
     "how long to wait for the master to register the application, and at "
     "the end to confirm how it ended"},
    {"driver-host", HEARTH_OPT_STR, NULL, "ADDR",
     "address executors connect to (default: the one facing the master)"},
    {"max-result-bytes", HEARTH_OPT_SIZE, "64M", "SIZE",
     "largest result of one task"},
    HEARTH_SHUFFLE_BOUND_OPTS,
    {"output", HEARTH_OPT_STR, NULL, "DIR",
     "job files: the last stage's results go to DIR/part-NNNNN, written by "
     "the executors, not to standard output"},
    {"work-dir", HEARTH_OPT_STR, NULL, "DIR",
     "scratch space of local modes (default: a new directory in $TMPDIR)"},
    {"record-outputs", HEARTH_OPT_BOOL, "true", "",
     "tell the master every output the stages leave on the workers or in "
     "part files, so that a driver that resumes the application (--resume, "
     "a supervised relaunch) reuses them; false: a resumed driver runs "
     "everything again"},
    {"resume", HEARTH_OPT_STR, NULL, "APP_ID",
     "take over application APP_ID, whose driver was lost (the master keeps "
     "it RELAUNCHING for its --resume-window): the job's stages whose "
     "outputs its earlier driver left are not run again"},
    {"driver-id", HEARTH_OPT_STR, NULL, "ID",
     "cluster mode: the driver id this driver runs as (set by the worker)"},
    {"curve-secret", HEARTH_OPT_STR, NULL, "FILE",
     "this driver's secret key file (hearth-keygen); with --master-key"},
    {"master-key", HEARTH_OPT_STR, NULL, "FILE",
     "the master's public key file: talk to a tcp:// master over CURVE"},
    {"submit-dir", HEARTH_OPT_STR, NULL, "DIR",
     "the directory command tasks get as HEARTH_SUBMIT_DIR and job files as "
     "{submit_dir} (default: the current one; hearth-submit's own)"},
    {"param", HEARTH_OPT_LIST, NULL, "NAME=VALUE",
     "job files: the value of a param the file declares, its {NAME} "
     "(repeatable)"},
    {"event-log", HEARTH_OPT_STR, NULL, "DIR",
     "write the application's events to DIR/APP_ID.events (JSON lines, "
     "docs/event-log.md; HEARTH_EVENT_LOG_DIR too)"},
    {"event-log-roll", HEARTH_OPT_SIZE, "128M", "SIZE",
     "start the event log's next file (.events.1, .2 ...) past this size"},
    {"log-level", HEARTH_OPT_STR, "warn", "LEVEL", "error, warn, info, debug"},
    {"log-file", HEARTH_OPT_STR, NULL, "FILE", "log here instead of stderr"},
    {NULL},
};

const hearth_opt_t *
driver_options (void)
{
    return s_options;
}

static void
s_copy_error (char *errbuf, size_t errlen, const char *text)
{
    if (errbuf && errlen)
        snprintf (errbuf, errlen, "%s", text);
}

bool
driver_setting_given (const hearth_conf_t *conf, const char *name)
{
    hearth_src_t src = hearth_conf_source (conf, name);
    return src == HEARTH_SRC_FLAG || src == HEARTH_SRC_FILE;
}

/* Spark's local[N,F] and local[*,F]: N cores (or all) and F attempts
   a task, as --max-failures F (unless that is given itself): the master
   becomes local[N] (or local[*]) at the same level.  0, or -1 with err. */
static int
s_local_failures (hearth_conf_t *conf, const char *url, hearth_error_t *err)
{
    char cores[16], master[32], f[16];
    int n = 0, failures;
    if (sscanf (url, "local[%15[0-9*],%d]%n", cores, &failures, &n) != 2
        || url[n] != '\0' || (strcmp (cores, "*") != 0 && !isdigit (cores[0])))
        return 0;
    if (failures < 1 || failures > 1000)
        return hearth_errprintf (err,
                                 "bad --master '%s': F, the attempts a task "
                                 "may make, is 1 to 1000",
                                 url);
    hearth_src_t src = hearth_conf_source (conf, "master");
    snprintf (master, sizeof master, "local[%s]", cores);
    snprintf (f, sizeof f, "%d", failures);
    if (!driver_setting_given (conf, "max-failures")
        && hearth_conf_set (conf, "max-failures", f, src, err) < 0)
        return -1;
    return hearth_conf_set (conf, "master", master, src, err);
}

int
driver_check_master (hearth_conf_t *conf, hearth_error_t *err)
{
    static const char *const from[] = {
        [HEARTH_SRC_DEFAULTS_FILE] = " (from the defaults file)",
        [HEARTH_SRC_FILE] = " (from a --conf file)",
        [HEARTH_SRC_ENV] = " (from HEARTH_MASTER)",
    };
    const char *url = hearth_conf_str (conf, "master");
    hearth_error_t uerr;
    if (url && strncmp (url, "local[", 6) == 0)
        return s_local_failures (conf, url, err);
    hearth_src_t src = hearth_conf_source (conf, "master");
    if (!url || strncmp (url, "tcp://", 6) != 0) {
        /* a local mode, or a mistake (127.0.0.1:7077): said now, a usage
           error, not when the engine starts */
        local_setup_t setup;
        if (local_parse_master (url, &setup, &uerr) == 0)
            return 0;
        return hearth_errprintf (err, "%s%s", uerr.text,
                                 src < HEARTH_SRC_FLAG && from[src] ? from[src]
                                                                    : "");
    }
    if (hearth_masters_check (url, &uerr) == 0)
        return 0;
    return hearth_errprintf (err, "bad --master: %s%s", uerr.text,
                             src < HEARTH_SRC_FLAG && from[src] ? from[src]
                                                                : "");
}

int
driver_check_limits (hearth_conf_t *conf, hearth_error_t *err)
{
    uint64_t max = hearth_conf_bytes (conf, "max-result-bytes");
    char given[32], limit[32];
    if (max <= DRIVER_MAX_FRAME_DATA)
        return 0;
    return hearth_errprintf (
        err,
        "max-result-bytes %s is over the %s a task's result may be (the "
        "largest frame a message carries); write large results to files (a "
        "stage's \"output\") or partition the stage",
        hearth_format_size (max, given, sizeof given),
        hearth_format_size (DRIVER_MAX_FRAME_DATA, limit, sizeof limit));
}

int
driver_check_executor_resources (const hearth_conf_t *conf, hearth_error_t *err)
{
    hearth_resource_amounts_t a;
    if (driver_executor_resources (conf, &a, err) < 0)
        return -1;
    hearth_resource_amounts_clear (&a);
    return 0;
}

/* spec's key given before in labels with another value: -1 with err
   (all the labels are asked for, and a worker carries one value per
   key; the last one silently kept would place executors where the user
   did not ask).  The same value again is the same label: 0. */
static int
s_label_again (const cJSON *labels, const char *spec, hearth_error_t *err)
{
    const char *eq = strchr (spec, '=');
    const cJSON *had = NULL;
    for (const cJSON *l = eq ? labels->child : NULL; l && !had; l = l->next)
        if (strlen (l->string) == (size_t) (eq - spec)
            && strncmp (l->string, spec, (size_t) (eq - spec)) == 0)
            had = l;
    if (!had || strcmp (had->valuestring, eq + 1) == 0)
        return 0;
    return hearth_errprintf (err,
                             "label %s given twice (%s, %s): a worker "
                             "carries one value per label",
                             had->string, had->valuestring, eq + 1);
}

int
driver_executor_labels (const hearth_conf_t *conf, cJSON **out,
                        hearth_error_t *err)
{
    const char *const *specs;
    size_t n = hearth_conf_list (conf, "executor-label", &specs);
    if (out)
        *out = NULL;
    if (n == 0)
        return 0;
    cJSON *labels = cJSON_CreateObject ();
    if (!labels)
        return hearth_errprintf (err, "out of memory");
    hearth_error_t lerr;
    for (size_t i = 0; i < n; i++)
        if (s_label_again (labels, specs[i], &lerr) < 0
            || hearth_labels_add_spec (labels, specs[i], &lerr) < 0) {
            cJSON_Delete (labels);
            return hearth_errprintf (err, "bad --executor-label %s: %s",
                                     specs[i], lerr.text);
        }
    if (out)
        *out = labels;
    else
        cJSON_Delete (labels);
    return 0;
}

const hearth_resource_amounts_t *
opts_executor_resources (const hearth_ctx_t *ctx)
{
    return &ctx->executor_resources;
}

/* The local-cluster workers' --resource and --resource-discovery values
   parse. */
static int
s_check_worker_resources (const hearth_conf_t *conf, hearth_error_t *err)
{
    static const char *const names[] = {"worker-resource",
                                        "worker-resource-discovery"};
    for (size_t i = 0; i < 2; i++) {
        size_t n;
        char **items = driver_worker_resources (conf, names[i], &n, err);
        if (!items)
            return -1;
        driver_params_destroy (&items);
    }
    return 0;
}

/* Read defaults, the defaults file, HEARTH_* variables and HEARTH_CONF
   into a new conf. */
static hearth_conf_t *
s_conf_from_env (char *errbuf, size_t errlen)
{
    hearth_error_t err;
    hearth_conf_t *conf = hearth_conf_new ("libhearth", s_options);
    char *argv[] = {"libhearth", NULL};
    if (!conf || hearth_conf_use_defaults (conf, NULL, false) < 0) {
        hearth_conf_destroy (&conf);
        s_copy_error (errbuf, errlen, "out of memory");
        return NULL;
    }
    if (hearth_conf_parse (conf, 1, argv, &err) < 0) {
        s_copy_error (errbuf, errlen, err.text);
        hearth_conf_destroy (&conf);
    }
    return conf;
}

hearth_opts_t *
hearth_opts_new (char *errbuf, size_t errlen)
{
    hearth_opts_t *self = calloc (1, sizeof *self);
    if (!self) {
        s_copy_error (errbuf, errlen, "out of memory");
        return NULL;
    }
    if (!(self->conf = s_conf_from_env (errbuf, errlen))) {
        free (self);
        return NULL;
    }
    return self;
}

void
hearth_opts_destroy (hearth_opts_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_conf_destroy (&(*self_p)->conf);
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

int
driver_executor_resources (const hearth_conf_t *conf,
                           hearth_resource_amounts_t *out, hearth_error_t *err)
{
    const char *const *items;
    size_t n = hearth_conf_list (conf, "executor-resource", &items);
    hearth_resource_amounts_t a = {0};
    hearth_error_t perr;
    for (size_t i = 0; i < n; i++)
        if (hearth_resource_amounts_add_spec (&a, items[i], &perr) < 0) {
            hearth_resource_amounts_clear (&a);
            return hearth_errprintf (err, "bad --executor-resource %s: %s",
                                     items[i], perr.text);
        }
    *out = a;
    return 0;
}

char *
driver_list_join (const hearth_conf_t *conf, const char *name)
{
    const char *const *items;
    size_t n = hearth_conf_list (conf, name, &items), len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen (items[i]) + 1;
    char *out = malloc (len), *o = out;
    for (size_t i = 0; out && i < n; i++)
        o += sprintf (o, "%s%s", i ? "," : "", items[i]);
    if (out)
        *o = '\0';
    return out;
}

char **
driver_worker_resources (const hearth_conf_t *conf, const char *name, size_t *n,
                         hearth_error_t *err)
{
    const char *const *items;
    size_t count = hearth_conf_list (conf, name, &items);
    char **out = calloc (count + 1, sizeof *out);
    bool discovery = strcmp (name, "worker-resource-discovery") == 0;
    *n = 0;
    if (!out) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        /* the environment's "gpu=0,1" comes as "gpu=0" and "1": an item
           without '=' continues the one before (an address has none) */
        char *next = NULL;
        if (*n && !strchr (items[i], '=')) {
            if (asprintf (&next, "%s,%s", out[*n - 1], items[i]) < 0)
                next = NULL;
            free (out[*n - 1]);
            out[*n - 1] = next;
        }
        else if ((out[*n] = strdup (items[i])))
            next = out[(*n)++];
        if (!next) {
            driver_params_destroy (&out);
            hearth_errprintf (err, "out of memory");
            return NULL;
        }
    }
    hearth_resources_t r = {0};
    hearth_error_t perr;
    for (size_t i = 0; i < *n; i++) {
        const char *eq = strchr (out[i], '=');
        int rc = !discovery ? hearth_resources_add_spec (&r, out[i], &perr)
                 : !eq || eq == out[i] || !eq[1]
                     ? hearth_errprintf (&perr, "expected NAME=SCRIPT")
                     : 0;
        if (rc < 0) {
            hearth_errprintf (err, "bad --%s %s: %s", name, out[i], perr.text);
            hearth_resources_clear (&r);
            driver_params_destroy (&out);
            return NULL;
        }
    }
    hearth_resources_clear (&r);
    return out;
}

/* An executor-resource value, refused where it is given rather than
   when the application starts. */
static int
s_check_executor_resource (const char *value, hearth_error_t *err)
{
    hearth_resource_amounts_t a = {0};
    hearth_error_t perr;
    int rc = hearth_resource_amounts_add_spec (&a, value, &perr);
    hearth_resource_amounts_clear (&a);
    return rc < 0 ? hearth_errprintf (err, "bad --executor-resource %s: %s",
                                      value, perr.text)
                  : 0;
}

int
hearth_opts_set (hearth_opts_t *self, const char *name, const char *value,
                 char *errbuf, size_t errlen)
{
    hearth_error_t err;
    if (name && value && strcmp (name, "executor-resource") == 0
        && s_check_executor_resource (value, &err) < 0) {
        s_copy_error (errbuf, errlen, err.text);
        return -1;
    }
    if (hearth_conf_set (self->conf, name, value, HEARTH_SRC_FLAG, &err) < 0) {
        s_copy_error (errbuf, errlen, err.text);
        return -1;
    }
    return 0;
}

hearth_conf_t *
driver_opts_conf (hearth_opts_t *opts)
{
    return opts->conf;
}

int
driver_submit_dir (const hearth_conf_t *conf, char *buf, size_t size,
                   hearth_error_t *err)
{
    const char *dir = hearth_conf_str (conf, "submit-dir");
    char cwd[PATH_MAX];
    if ((!dir || dir[0] != '/') && !getcwd (cwd, sizeof cwd))
        return hearth_errprintf (err, "cannot tell the current directory: %s",
                                 strerror (errno));
    int n = !dir            ? snprintf (buf, size, "%s", cwd)
            : dir[0] == '/' ? snprintf (buf, size, "%s", dir)
                            : snprintf (buf, size, "%s/%s", cwd, dir);
    if (n < 0 || (size_t) n >= size)
        return hearth_errprintf (err, "--submit-dir: path too long");
    return 0;
}

/* Make conf's submit-dir absolute, the current directory when unset, so
   that every task sees the same one (jobs.c). */
static int
s_resolve_submit_dir (hearth_conf_t *conf, hearth_error_t *err)
{
    char dir[PATH_MAX];
    hearth_src_t src = hearth_conf_source (conf, "submit-dir");
    if (driver_submit_dir (conf, dir, sizeof dir, err) < 0)
        return -1;
    return hearth_conf_set (conf, "submit-dir", dir,
                            src > HEARTH_SRC_DEFAULT ? src : HEARTH_SRC_DEFAULT,
                            err);
}

/* Params travel from hearth-submit in HEARTH_PARAM or a driver's
   settings, where a list is comma-separated: each item's '%' and ','
   are written %25 and %2C there. */
char *
driver_params_encode (const hearth_conf_t *conf)
{
    const char *const *items;
    size_t n = hearth_conf_list (conf, "param", &items), len = 1;
    for (size_t i = 0; i < n; i++)
        len += 3 * strlen (items[i]) + 1;
    char *out = malloc (len), *o = out;
    for (size_t i = 0; out && i < n; i++) {
        if (i)
            *o++ = ',';
        for (const char *p = items[i]; *p; p++)
            o += *p == '%'   ? sprintf (o, "%%25")
                 : *p == ',' ? sprintf (o, "%%2C")
                             : (*o = *p, 1);
    }
    if (out)
        *o = '\0';
    return out;
}

char **
driver_params (const hearth_conf_t *conf, size_t *n)
{
    const char *const *items;
    bool encoded = hearth_conf_source (conf, "param") < HEARTH_SRC_FLAG;
    *n = hearth_conf_list (conf, "param", &items);
    char **out = calloc (*n + 1, sizeof *out);
    for (size_t i = 0; out && i < *n; i++) {
        char *o = out[i] = strdup (items[i]);
        if (!o) {
            driver_params_destroy (&out);
            break;
        }
        for (const char *p = items[i]; encoded && *p; p++)
            *o++ = strncmp (p, "%25", 3) == 0       ? (p += 2, '%')
                   : strncasecmp (p, "%2C", 3) == 0 ? (p += 2, ',')
                                                    : *p;
        if (encoded)
            *o = '\0';
    }
    return out;
}

void
driver_params_destroy (char ***params_p)
{
    char **v = *params_p;
    for (size_t i = 0; v && v[i]; i++)
        free (v[i]);
    free (v);
    *params_p = NULL;
}

/* Copy every set value of from into a new conf, at the same level. */
hearth_conf_t *
driver_conf_copy (const hearth_opts_t *opts, char *errbuf, size_t errlen)
{
    hearth_conf_t *conf = s_conf_from_env (errbuf, errlen);
    hearth_error_t err;
    if (!conf)
        return NULL;
    for (const hearth_opt_t *o = s_options; opts && o->name; o++) {
        hearth_src_t src = hearth_conf_source (opts->conf, o->name);
        if (src <= HEARTH_SRC_DEFAULT)
            continue;
        if (o->type == HEARTH_OPT_LIST) {
            /* Exactly opts' list: at its own level the items would add
               to what the copy read again from the environment (each
               library shipped twice, each file refused as a duplicate),
               as flags they replace it. */
            const char *const *items;
            size_t n = hearth_conf_list (opts->conf, o->name, &items);
            for (size_t i = 0; i < n; i++)
                hearth_conf_set (conf, o->name, items[i], HEARTH_SRC_FLAG,
                                 NULL);
        }
        else
            hearth_conf_set (conf, o->name,
                             hearth_conf_str (opts->conf, o->name), src, NULL);
    }
    if (driver_check_master (conf, &err) < 0
        || driver_check_limits (conf, &err) < 0
        || driver_check_executor_resources (conf, &err) < 0
        || driver_executor_labels (conf, NULL, &err) < 0
        || driver_check_dynalloc (conf, &err) < 0
        || s_check_worker_resources (conf, &err) < 0
        || s_resolve_submit_dir (conf, &err) < 0) {
        s_copy_error (errbuf, errlen, err.text);
        hearth_conf_destroy (&conf);
    }
    return conf;
}

hearth_opts_t *
driver_opts_from_argv (int argc, char **argv, int *first, char *errbuf,
                       size_t errlen)
{
    hearth_error_t err;
    hearth_opts_t *self = calloc (1, sizeof *self);
    if (!self || !(self->conf = hearth_conf_new ("hearth-driver", s_options))
        || hearth_conf_use_defaults (self->conf, NULL, false) < 0) {
        if (self)
            hearth_conf_destroy (&self->conf);
        free (self);
        s_copy_error (errbuf, errlen, "out of memory");
        return NULL;
    }
    *first = hearth_conf_parse (self->conf, argc, argv, &err);
    if (*first >= 0 && !hearth_conf_wants_help (self->conf)
        && !hearth_conf_wants_version (self->conf)
        && (driver_check_master (self->conf, &err) < 0
            || driver_check_executor_resources (self->conf, &err) < 0
            || driver_executor_labels (self->conf, NULL, &err) < 0
            || driver_check_dynalloc (self->conf, &err) < 0))
        *first = -1;
    if (*first < 0) {
        s_copy_error (errbuf, errlen, err.text);
        hearth_opts_destroy (&self);
    }
    return self;
}

void
driver_user_name (char *buf, size_t size)
{
    struct passwd pw, *found = NULL;
    char scratch[4096];
    if (getpwuid_r (getuid (), &pw, scratch, sizeof scratch, &found) == 0
        && found && !hearth_ctl_has (found->pw_name))
        snprintf (buf, size, "%s", found->pw_name);
    else
        snprintf (buf, size, "%u", (unsigned) getuid ());
}

const char *
driver_app_name (const hearth_conf_t *conf)
{
    const char *name = hearth_conf_str (conf, "name");
    if (name)
        return name;
    name = program_invocation_short_name;
    size_t len = name ? strlen (name) : 0;
    return len && len <= 255 && !hearth_ctl_has (name) ? name : "hearth";
}
