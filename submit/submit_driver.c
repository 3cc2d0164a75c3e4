/*  submit_driver.c - hearth-submit in cluster mode: the application (a
    job file or a program) and the libraries and files it ships travel to
    the master inside SUBMIT_DRIVER as binary frames, with the driver's
    settings (the libraries and files by name: the worker writes them all
    into the driver's directory, where it runs); the master places the
    driver on a worker, and this side follows it with DRIVER_STATUS until
    it ends.
*/
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <czmq.h>

#include "jobfile/jobnames.h"
#include "jobfile/jobrun.h"
#include "libcore/clock.h"
#include "libcore/ctlchars.h"
#include "libcore/ids.h"
#include "libcore/proto.h"
#include "libcore/units.h"
#include "libhearth/internal.h"
#include "libhearth/ship.h"
#include "submit/submit_driver.h"
#include "submit/submit_request.h"

/* Shipped files: the program of a binary driver, and the rest. */
static const int s_program_mode = 0700, s_file_mode = 0600;

bool
submit_is_job_file (const char *app)
{
    size_t len = strlen (app);
    if (len > 5 && strcmp (app + len - 5, ".json") == 0)
        return true;
    FILE *f = fopen (app, "r");
    int c = EOF;
    if (f) {
        while ((c = fgetc (f)) != EOF && isspace (c))
            ;
        fclose (f);
    }
    return c == '{';
}

/* ---- the files to ship -------------------------------------------------- */

/* What a file to ship is to the driver. */
typedef enum {
    S_APP,  /* the application: the job file or the program */
    S_LIB,  /* a library of function tasks ("lib") */
    S_FILE, /* a file for the executors' work dirs ("files") */
} s_kind_t;

/* A file to ship. */
typedef struct {
    char *path;    /* where it is here (owned) */
    char *name;    /* its name there: the base name (owned) */
    int mode;      /* its permission bits there */
    s_kind_t kind; /* what it is */
} s_file_t;

/* Everything that goes into SUBMIT_DRIVER's files. */
typedef struct {
    s_file_t *items; /* owned */
    size_t count;    /* used */
    uint64_t bytes;  /* their total size */
} s_files_t;

/* Free what f holds; it is empty again. */
static void
s_files_release (s_files_t *f)
{
    for (size_t i = 0; i < f->count; i++) {
        free (f->items[i].path);
        free (f->items[i].name);
    }
    free (f->items);
    memset (f, 0, sizeof *f);
}

static bool
s_files_has (const s_files_t *f, const char *name)
{
    for (size_t i = 0; i < f->count; i++)
        if (strcmp (f->items[i].name, name) == 0)
            return true;
    return false;
}

/* Add path to the files; -1 after a message. */
static int
s_files_add (s_files_t *f, const char *path, int mode, s_kind_t kind)
{
    struct stat st;
    if (stat (path, &st) < 0 || !S_ISREG (st.st_mode))
        return submit_fail (-1, "%s: %s", path,
                            errno ? strerror (errno) : "not a regular file");
    char *copy = strdup (path);
    char *name = copy ? strdup (basename (copy)) : NULL;
    free (copy);
    if (!name)
        return submit_fail (-1, "out of memory");
    if (!hearth_name_safe (name) || strcmp (name, "stdout") == 0
        || strcmp (name, "stderr") == 0) {
        submit_fail (
            -1,
            "%s: '%s' cannot be shipped under that name (use letters, "
            "digits and ._+- , not starting with . or -; not stdout or "
            "stderr): rename it",
            path, name);
        free (name);
        return -1;
    }
    if (s_files_has (f, name)) {
        submit_fail (-1, "two files to ship are called %s: rename one", name);
        free (name);
        return -1;
    }
    s_file_t *items = realloc (f->items, (f->count + 1) * sizeof *items);
    if (!items) {
        free (name);
        return submit_fail (-1, "out of memory");
    }
    f->items = items;
    f->items[f->count++] = (s_file_t){strdup (path), name, mode, kind};
    f->bytes += (uint64_t) st.st_size;
    return 0;
}

/* The job file's JSON, or NULL when it is not valid (hearth-driver
   reports the mistake, with its place). */
static cJSON *
s_job_json (const char *job_path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *in = fopen (job_path, "r");
    if (!in)
        return NULL;
    FILE *mem = open_memstream (&text, &len);
    int c;
    while (mem && (c = fgetc (in)) != EOF)
        fputc (c, mem);
    fclose (in);
    if (mem)
        fclose (mem);
    cJSON *root = text ? cJSON_Parse (text) : NULL;
    free (text);
    return root;
}

/* n files to ship as "files": checked as the driver will check them
   (names, one per base name), executable or not as they are here. */
static int
s_add_files (s_files_t *f, const char *const *paths, size_t n)
{
    hearth_error_t err;
    if (ship_check_files (paths, n, NULL, &err) < 0)
        return submit_fail (-1, "--files: %s", err.text);
    for (size_t i = 0; i < n; i++)
        if (s_files_add (f, paths[i],
                         access (paths[i], X_OK) == 0 ? s_program_mode
                                                      : s_file_mode,
                         S_FILE)
            < 0)
            return -1;
    return 0;
}

/* What the job file names under "lib" and "files", found as
   hearth-driver finds them (jobnames.h), less what the command line
   ships under the same base names. */
static int
s_job_names (s_files_t *f, const char *job_path, const char *const *libs,
             size_t nlibs, const char *const *files, size_t nfiles)
{
    hearth_error_t err;
    char **paths = NULL;
    size_t n = 0;
    cJSON *root = s_job_json (job_path);
    int rc = 0;
    if (!root)
        return 0;
    if (jobnames_resolve (root, "lib", job_path, libs, nlibs, &paths, &n, &err)
        < 0)
        rc = submit_fail (-1, "%s: %s", job_path, err.text);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = s_files_add (f, paths[i], s_file_mode, S_LIB);
    jobnames_destroy (&paths);
    if (rc == 0
        && jobnames_resolve (root, "files", job_path, files, nfiles, &paths, &n,
                             &err)
               < 0)
        rc = submit_fail (-1, "%s: %s", job_path, err.text);
    if (rc == 0)
        rc = s_add_files (f, (const char *const *) paths, n);
    jobnames_destroy (&paths);
    cJSON_Delete (root);
    return rc;
}

/* The application, its libraries and files, and the job file's. */
static int
s_collect (hearth_conf_t *conf, const char *app, bool job, s_files_t *f)
{
    if (!job && access (app, X_OK) != 0)
        return submit_fail (
            -1,
            "%s is neither a job file (JSON) nor a program this "
            "user can run",
            app);
    if (s_files_add (f, app, job ? s_file_mode : s_program_mode, S_APP) < 0)
        return -1;
    const char *const *libs;
    size_t nlibs = hearth_conf_list (conf, "lib", &libs), nfiles = 0;
    for (size_t i = 0; i < nlibs; i++)
        if (s_files_add (f, libs[i], s_file_mode, S_LIB) < 0)
            return -1;
    char **files = ship_file_paths (conf, &nfiles);
    int rc = !files ? submit_fail (-1, "out of memory")
                    : s_add_files (f, (const char *const *) files, nfiles);
    if (rc == 0 && job)
        rc = s_job_names (f, app, libs, nlibs, (const char *const *) files,
                          nfiles);
    ship_paths_destroy (&files);
    if (rc < 0)
        return -1;
    uint64_t limit = hearth_conf_bytes (conf, "max-submit-size");
    if (f->bytes > limit)
        return submit_fail (
            -1,
            "%s and the libraries and files it ships are %llu bytes, more "
            "than --max-submit-size (%llu bytes): cluster mode "
            "carries them inside one message",
            app, (unsigned long long) f->bytes, (unsigned long long) limit);
    return 0;
}

/* ---- before shipping ---------------------------------------------------- */

/* What the driver will refuse on its worker, refused here in the words of
   the job file and of this command line (exit 2): a job file with a
   mistake or a task over the limits of a task (jobfile.h), and an
   argument that SUBMIT_DRIVER cannot carry (nor the worker pass to the
   driver's command line).  Not refused by the master in wire words
   after shipping. */
static int
s_check_here (hearth_conf_t *conf, int argc, char **argv, int first, bool job)
{
    hearth_error_t err;
    jobfile_t *jf =
        job ? jobrun_load (conf, argc, argv, first, true, &err) : NULL;
    if (job && !jf)
        return submit_fail (2, "%s", err.text);
    jobfile_destroy (&jf);
    int nargs = argc - first - 1;
    if (nargs > HEARTH_TASK_ARGV_MAX)
        return submit_fail (2,
                            "%d arguments after %s, over the %d that cluster "
                            "mode carries to the driver",
                            nargs, argv[first], HEARTH_TASK_ARGV_MAX);
    for (int i = first + 1; i < argc; i++) {
        size_t len = strlen (argv[i]);
        if (len > HEARTH_TASK_ARG_MAX)
            return submit_fail (2,
                                "argument %d after %s is %zu bytes, over the "
                                "%d an argument may be in cluster mode (it "
                                "travels to the driver's command line): ship "
                                "the data as a file (--files)",
                                i - first, argv[first], len,
                                HEARTH_TASK_ARG_MAX);
    }
    return 0;
}

/* ---- SUBMIT_DRIVER ---------------------------------------------------- */

/* Read path into a new frame and add it to msg; returns its index or -1
   after a message. */
static int
s_add_file_frame (hearth_msg_t *msg, const char *path)
{
    FILE *in = fopen (path, "rb");
    struct stat st;
    if (!in || fstat (fileno (in), &st) < 0) {
        if (in)
            fclose (in);
        return submit_fail (-1, "%s: %s", path, strerror (errno));
    }
    zframe_t *frame = zframe_new (NULL, (size_t) st.st_size);
    size_t got =
        frame ? fread (zframe_data (frame), 1, zframe_size (frame), in) : 0;
    fclose (in);
    if (!frame || got != zframe_size (frame)) {
        zframe_destroy (&frame);
        return submit_fail (-1, "%s: could not read it whole", path);
    }
    int index = hearth_msg_add_frame (msg, &frame);
    return index < 0 ? submit_fail (-1, "out of memory") : index;
}

/* The names of the files of one kind, comma-separated, as setting key of
   map (nothing when there are none). */
static void
s_add_names (cJSON *map, const s_files_t *f, s_kind_t kind, const char *key)
{
    char *names = NULL;
    size_t len = 0, n = 0;
    FILE *out = open_memstream (&names, &len);
    for (size_t i = 0; out && i < f->count; i++)
        if (f->items[i].kind == kind)
            fprintf (out, "%s%s", n++ ? "," : "", f->items[i].name);
    if (out)
        fclose (out);
    if (map && names && names[0])
        cJSON_AddStringToObject (map, key, names);
    free (names);
}

/* The driver's settings: every driver option given on the command line
   here (a flag, or in a --conf FILE), the shipped libraries by name, and
   --conf KEY=VALUE extras. */
static cJSON *
s_settings (hearth_conf_t *conf, const s_files_t *f)
{
    /* Not the submitter's keys: the driver uses its worker's; not the
       paths of libraries and files here: their names there, below. */
    static const char *const skipped[] = {
        "master",       "lib",        "files", "driver-id",
        "curve-secret", "master-key", NULL};
    cJSON *map = cJSON_CreateObject ();
    for (const hearth_opt_t *o = driver_options (); map && o->name; o++) {
        bool skip = false;
        for (int i = 0; skipped[i]; i++)
            skip |= strcmp (o->name, skipped[i]) == 0;
        if (skip || !driver_setting_given (conf, o->name))
            continue;
        if (strcmp (o->name, "param") == 0) { /* a list: all its items */
            char *text = driver_params_encode (conf);
            if (text)
                cJSON_AddStringToObject (map, o->name, text);
            free (text);
        }
        else if (o->type == HEARTH_OPT_LIST) { /* executor-resource... */
            char *text = driver_list_join (conf, o->name);
            if (text)
                cJSON_AddStringToObject (map, o->name, text);
            free (text);
        }
        else
            cJSON_AddStringToObject (map, o->name,
                                     hearth_conf_str (conf, o->name));
    }
    s_add_names (map, f, S_LIB, "lib");
    s_add_names (map, f, S_FILE, "files");
    const char *const *extras;
    size_t n = hearth_conf_extras (conf, &extras);
    for (size_t i = 0; map && i < n; i++) {
        const char *eq = strchr (extras[i], '=');
        char *key = eq ? strndup (extras[i], (size_t) (eq - extras[i])) : NULL;
        if (key && !cJSON_GetObjectItem (map, key))
            cJSON_AddStringToObject (map, key, eq + 1);
        free (key);
    }
    return map;
}

static hearth_msg_t *
s_build (hearth_conf_t *conf, int argc, char **argv, int first,
         const s_files_t *f, bool job)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_SUBMIT_DRIVER);
    if (!msg)
        return NULL;
    cJSON *b = msg->body;
    const char *name = hearth_conf_str (conf, "name");
    cJSON_AddStringToObject (b, "name", name ? name : f->items[0].name);
    cJSON_AddStringToObject (b, "app", f->items[0].name);
    cJSON_AddStringToObject (b, "kind", job ? "job" : "binary");
    cJSON *args = cJSON_AddArrayToObject (b, "args");
    for (int i = first + 1; args && i < argc; i++)
        cJSON_AddItemToArray (args, cJSON_CreateString (argv[i]));
    cJSON *files = cJSON_AddArrayToObject (b, "files");
    for (size_t i = 0; files && i < f->count; i++) {
        int index = s_add_file_frame (msg, f->items[i].path);
        if (index < 0) {
            hearth_msg_destroy (&msg);
            return NULL;
        }
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "name", f->items[i].name);
        cJSON_AddNumberToObject (o, "frame", index);
        cJSON_AddNumberToObject (o, "mode", f->items[i].mode);
        cJSON_AddItemToArray (files, o);
    }
    if (hearth_conf_isset (conf, "driver-cores"))
        cJSON_AddNumberToObject (
            b, "cores", (double) hearth_conf_int (conf, "driver-cores"));
    int64_t memory_mb =
        (int64_t) (hearth_conf_bytes (conf, "driver-memory") / HEARTH_MiB);
    cJSON_AddNumberToObject (b, "memory_mb",
                             (double) (memory_mb > 0 ? memory_mb : 1));
    cJSON_AddBoolToObject (b, "supervise",
                           hearth_conf_bool (conf, "supervise"));
    cJSON_AddItemToObject (b, "conf", s_settings (conf, f));
    return msg;
}

/* ---- following the driver ---------------------------------------------- */

/* Print a status change line on stderr: one line, the master's text in
   it (the driver's error, a note) with its control characters escaped. */
static void
s_tell (const char *driver_id, const cJSON *b)
{
    const char *state = hearth_json_str (b, "state");
    const char *worker = hearth_json_str (b, "worker_id");
    const char *host = hearth_json_str (b, "worker_host");
    const char *error = hearth_json_str (b, "error");
    const char *note = hearth_json_str (b, "message");
    bool launching = strcmp (state, "SUBMITTED") == 0 && worker;
    char where[512] = "", launch[32] = "";
    if (worker && !submit_driver_ended (state)
        && strcmp (state, "RELAUNCHING") != 0)
        snprintf (where, sizeof where, " on %s (%s)", worker,
                  host ? host : "?");
    if (hearth_json_int (b, "launches", 0) > 1)
        snprintf (launch, sizeof launch, ", launch %lld",
                  (long long) hearth_json_int (b, "launches", 0));
    const char *sep = "", *text = "", *end = "";
    if (error && strcmp (state, "FINISHED") != 0)
        sep = ": ", text = error;
    else if (note && strcmp (state, "SUBMITTED") == 0)
        sep = " (", text = note, end = ")";
    hearth_ctl_fprintf (stderr, "hearth-submit: driver %s %s%s%s%s%s%s\n",
                        driver_id, launching ? "launching" : state, where,
                        launch, sep, text, end);
}

/* What was last said of the application's progress. */
typedef struct {
    char text[1024]; /* the line, less its time */
    int64_t said_ms; /* when (monotonic), or 0 */
} s_progress_t;

/* One line of the driver's application's progress (DRIVER_STATUS's
   `progress`), said when it changed, at most once per s_progress_ms:
   "hearth-submit: driver D: 120 of 400 tasks finished, 8 running,
   2 failed attempts; stage count 40/100". */
static const int64_t s_progress_ms = 5000;

static void
s_tell_progress (const char *driver_id, const cJSON *p, s_progress_t *last)
{
    if (!cJSON_IsObject (p))
        return;
    char text[sizeof last->text];
    int n = snprintf (text, sizeof text,
                      "%lld of %lld tasks finished, %lld running",
                      (long long) hearth_json_int (p, "tasks_finished", 0),
                      (long long) hearth_json_int (p, "tasks_total", 0),
                      (long long) hearth_json_int (p, "tasks_running", 0));
    int64_t failed = hearth_json_int (p, "tasks_failed", 0);
    if (failed && n > 0 && (size_t) n < sizeof text)
        n += snprintf (text + n, sizeof text - (size_t) n,
                       ", %lld failed attempts", (long long) failed);
    const cJSON *st;
    const char *sep = "; stage";
    cJSON_ArrayForEach (st, cJSON_GetObjectItem (p, "stages"))
    {
        if (n <= 0 || (size_t) n >= sizeof text)
            break;
        const char *name = hearth_json_str (st, "name");
        n += snprintf (text + n, sizeof text - (size_t) n, "%s %s %lld/%lld",
                       sep, name ? name : "?",
                       (long long) hearth_json_int (st, "finished", 0),
                       (long long) hearth_json_int (st, "tasks", 0));
        sep = ",";
    }
    int64_t now = hearth_mono_ms ();
    if (strcmp (text, last->text) == 0
        || (last->said_ms && now - last->said_ms < s_progress_ms))
        return;
    hearth_ctl_fprintf (stderr, "hearth-submit: driver %s: %s\n", driver_id,
                        text);
    snprintf (last->text, sizeof last->text, "%s", text);
    last->said_ms = now;
}

/* Poll DRIVER_STATUS until the driver ends; 0 only when it FINISHED. */
static int
s_follow (submit_link_t *link, hearth_conf_t *conf, const char *driver_id)
{
    int64_t interval = hearth_conf_ms (conf, "heartbeat-interval");
    char last[64] = "", last_note[1024] = "";
    int64_t last_launches = 0;
    bool silent = false;
    s_progress_t progress = {.said_ms = 0};
    while (true) {
        hearth_error_t err;
        hearth_msg_t *r = submit_link_status (link, driver_id, &err);
        if (!r) {
            if (!silent)
                fprintf (stderr,
                         "hearth-submit: %s; still following driver %s "
                         "(Ctrl-C stops following, not the driver)\n",
                         err.text, driver_id);
            silent = true;
            zclock_sleep ((int) interval);
            continue;
        }
        silent = false;
        const char *state = hearth_json_str (r->body, "state");
        if (!hearth_json_bool (r->body, "found", false) || !state) {
            hearth_msg_destroy (&r);
            return submit_fail (1, "the master no longer knows driver %s",
                                driver_id);
        }
        int64_t launches = hearth_json_int (r->body, "launches", 0);
        /* a waiting driver's note changes with why it waits */
        const char *note = hearth_json_str (r->body, "message");
        if (strcmp (state, last) != 0 || launches != last_launches
            || (note && strcmp (state, "SUBMITTED") == 0
                && strncmp (note, last_note, sizeof last_note - 1) != 0))
            s_tell (driver_id, r->body);
        if (strcmp (state, "RUNNING") == 0)
            s_tell_progress (driver_id,
                             cJSON_GetObjectItem (r->body, "progress"),
                             &progress);
        snprintf (last_note, sizeof last_note, "%s", note ? note : "");
        snprintf (last, sizeof last, "%s", state);
        last_launches = launches;
        if (submit_driver_ended (state)) {
            int rc = strcmp (state, "FINISHED") == 0 ? 0 : 1;
            if (launches > 0) /* one never launched wrote nothing */
                fprintf (stderr,
                         "hearth-submit: its output: hearth-submit --master "
                         "%s --logs %s\n",
                         submit_link_url (link), driver_id);
            hearth_msg_destroy (&r);
            return rc;
        }
        hearth_msg_destroy (&r);
        zclock_sleep ((int) interval);
    }
}

int
submit_cluster (hearth_conf_t *conf, int argc, char **argv, int first)
{
    s_files_t files = {0};
    hearth_error_t err;
    const char *app = argv[first];
    bool job = submit_is_job_file (app);
    int rc = s_check_here (conf, argc, argv, first, job);
    if (rc != 0)
        return rc;
    submit_link_t *link = submit_link_new (conf, &rc);
    if (!link)
        return rc;
    hearth_msg_t *msg = NULL, *reply = NULL;
    if (s_collect (conf, app, job, &files) < 0
        || !(msg = s_build (conf, argc, argv, first, &files, job))) {
        s_files_release (&files);
        submit_link_destroy (&link);
        return 1;
    }
    s_files_release (&files);
    reply = submit_link_request (link, &msg, HEARTH_CMD_SUBMIT_DRIVER_RESPONSE,
                                 &err);
    if (!reply)
        rc = submit_fail (1, "%s", err.text);
    else if (!hearth_json_bool (reply->body, "ok", false))
        rc = submit_fail (1, "the master refused the application: %s",
                          hearth_json_str (reply->body, "message"));
    else {
        const char *id = hearth_json_str (reply->body, "driver_id");
        printf ("%s\n", id);
        fflush (stdout);
        if (!hearth_conf_bool (conf, "no-wait"))
            rc = s_follow (link, conf, id);
    }
    hearth_msg_destroy (&reply);
    submit_link_destroy (&link);
    return rc;
}
