/*  webstate.c - the worker's history of executors and drivers for its
    pages; see webstate.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <czmq.h>

#include "worker/webstate.h"

/* One executor or driver seen running. */
typedef struct {
    char key[300];      /* "APP/EXEC" or DRIVER_ID: its directory */
    char app_id[160];   /* its application (a driver's once it said) */
    int exec_id;        /* executor: its id */
    bool driver;        /* a driver (else an executor) */
    int cores;          /* cores it held */
    int64_t memory_mb;  /* memory it held */
    pid_t pid;          /* its pid */
    int64_t started_ms; /* wall clock, RUNNING */
    int64_t ended_ms;   /* wall clock of its end, or 0 */
    char state[16];     /* its last state */
    char reason[256];   /* how it ended, or "" */
} s_rec_t;

struct webstate {
    children_t *children;   /* the worker's table (borrowed) */
    char work_dir[4096];    /* the directories' root */
    zhashx_t *live;         /* key -> s_rec_t *, running (owned) */
    zlistx_t *ended[2];     /* s_rec_t *, ended, newest first: executors,
                               drivers (owned) */
    webstate_exits_t exits; /* executor exits by reason */
};

static int64_t
s_wall_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
s_rec_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

webstate_t *
webstate_new (children_t *children, const char *work_dir)
{
    webstate_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->children = children;
    snprintf (self->work_dir, sizeof self->work_dir, "%s", work_dir);
    self->live = zhashx_new ();
    self->ended[0] = zlistx_new ();
    self->ended[1] = zlistx_new ();
    if (!self->live || !self->ended[0] || !self->ended[1]) {
        webstate_destroy (&self);
        errno = ENOMEM;
        return NULL;
    }
    zhashx_set_destructor (self->live, s_rec_destroy);
    zlistx_set_destructor (self->ended[0], s_rec_destroy);
    zlistx_set_destructor (self->ended[1], s_rec_destroy);
    return self;
}

void
webstate_destroy (webstate_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    webstate_t *self = *self_p;
    zhashx_destroy (&self->live);
    zlistx_destroy (&self->ended[0]);
    zlistx_destroy (&self->ended[1]);
    free (self);
    *self_p = NULL;
}

/* The cores and memory of the live child (kind, matching key) from the
   table's view. */
static void
s_resources (webstate_t *self, s_rec_t *rec)
{
    cJSON *list = children_json (self->children,
                                 rec->driver ? &drivers_kind : &execs_kind);
    const cJSON *o;
    cJSON_ArrayForEach (o, list)
    {
        const cJSON *pid = cJSON_GetObjectItem (o, "pid");
        if (!cJSON_IsNumber (pid) || (pid_t) pid->valueint != rec->pid)
            continue;
        rec->cores = cJSON_GetObjectItem (o, "cores")->valueint;
        rec->memory_mb =
            (int64_t) cJSON_GetObjectItem (o, "memory_mb")->valuedouble;
    }
    cJSON_Delete (list);
}

static void
s_started (webstate_t *self, s_rec_t *rec)
{
    rec->started_ms = s_wall_ms ();
    snprintf (rec->state, sizeof rec->state, "RUNNING");
    s_resources (self, rec);
    zhashx_update (self->live, rec->key, rec); /* replaces an older one */
}

/* The record of key ended with state and reason (a new one when it was
   never seen running: a launch that failed). */
static void
s_ended (webstate_t *self, s_rec_t *fresh, const char *state,
         const char *reason)
{
    s_rec_t *rec = fresh;
    const s_rec_t *live = zhashx_lookup (self->live, fresh->key);
    if (live) { /* what was known of it running */
        rec->started_ms = live->started_ms;
        rec->cores = live->cores;
        rec->memory_mb = live->memory_mb;
        if (!rec->pid)
            rec->pid = live->pid;
        if (!rec->app_id[0])
            snprintf (rec->app_id, sizeof rec->app_id, "%s", live->app_id);
        zhashx_delete (self->live, fresh->key);
    }
    else
        rec->started_ms = s_wall_ms ();
    rec->ended_ms = s_wall_ms ();
    snprintf (rec->state, sizeof rec->state, "%s", state);
    snprintf (rec->reason, sizeof rec->reason, "%s", reason ? reason : state);
    zlistx_t *list = self->ended[rec->driver];
    zlistx_add_start (list, rec);
    while (zlistx_size (list) > WEBSTATE_ENDED_MAX) {
        zlistx_last (list);
        zlistx_delete (list, zlistx_cursor (list));
    }
}

void
webstate_exec (webstate_t *self, const execs_report_t *r)
{
    s_rec_t *rec = calloc (1, sizeof *rec);
    if (!rec)
        return;
    snprintf (rec->key, sizeof rec->key, "%s/%d", r->app_id, r->exec_id);
    snprintf (rec->app_id, sizeof rec->app_id, "%s", r->app_id);
    rec->exec_id = r->exec_id;
    rec->pid = r->pid;
    if (strcmp (r->state, "RUNNING") == 0) {
        s_started (self, rec);
        return;
    }
    if (strcmp (r->state, "EXITED") == 0)
        self->exits.exited++;
    else if (strcmp (r->state, "KILLED") == 0)
        self->exits.killed++;
    else
        self->exits.failed++;
    s_ended (self, rec, r->state, r->message);
}

void
webstate_driver (webstate_t *self, const drivers_report_t *r)
{
    s_rec_t *rec = calloc (1, sizeof *rec);
    if (!rec)
        return;
    snprintf (rec->key, sizeof rec->key, "%s", r->driver_id);
    rec->driver = true;
    rec->pid = r->pid;
    if (strcmp (r->state, "RUNNING") == 0)
        s_started (self, rec);
    else
        s_ended (self, rec, r->state, r->error);
}

void
webstate_driver_app (webstate_t *self, const char *driver_id,
                     const char *app_id)
{
    s_rec_t *rec = zhashx_lookup (self->live, driver_id);
    if (rec && rec->driver)
        snprintf (rec->app_id, sizeof rec->app_id, "%s", app_id);
}

webstate_exits_t
webstate_exits (const webstate_t *self)
{
    return self->exits;
}

/* The sizes of KEY/stdout and KEY/stderr; false when its directory is
   gone. */
static bool
s_add_sizes (const webstate_t *self, const char *key, cJSON *o)
{
    char path[4500];
    struct stat st;
    snprintf (path, sizeof path, "%s/%s", self->work_dir, key);
    if (stat (path, &st) < 0)
        return false;
    static const char *const streams[] = {"stdout", "stderr"};
    for (int i = 0; i < 2; i++) {
        char name[32];
        snprintf (path, sizeof path, "%s/%s/%s", self->work_dir, key,
                  streams[i]);
        snprintf (name, sizeof name, "%s_bytes", streams[i]);
        cJSON_AddNumberToObject (
            o, name, stat (path, &st) == 0 ? (double) st.st_size : 0);
    }
    return true;
}

static cJSON *
s_rec_json (const s_rec_t *rec)
{
    cJSON *o = cJSON_CreateObject ();
    if (rec->driver) {
        cJSON_AddStringToObject (o, "driver_id", rec->key);
        if (rec->app_id[0])
            cJSON_AddStringToObject (o, "app_id", rec->app_id);
    }
    else {
        cJSON_AddStringToObject (o, "app_id", rec->app_id);
        cJSON_AddNumberToObject (o, "exec_id", rec->exec_id);
    }
    cJSON_AddNumberToObject (o, "cores", rec->cores);
    cJSON_AddNumberToObject (o, "memory_mb", (double) rec->memory_mb);
    cJSON_AddStringToObject (o, "state", rec->state);
    cJSON_AddNumberToObject (o, "pid", (double) rec->pid);
    cJSON_AddNumberToObject (o, "started_ms", (double) rec->started_ms);
    cJSON_AddNumberToObject (o, "ended_ms", (double) rec->ended_ms);
    cJSON_AddStringToObject (o, "exit_reason", rec->reason);
    return o;
}

/* The live entry o (from the children table) gains its start and sizes. */
static void
s_live_fields (webstate_t *self, bool drivers, cJSON *o)
{
    char key[300];
    const cJSON *id = cJSON_GetObjectItem (o, drivers ? "driver_id" : "app_id");
    if (!cJSON_IsString (id))
        return;
    if (drivers)
        snprintf (key, sizeof key, "%s", id->valuestring);
    else
        snprintf (key, sizeof key, "%s/%d", id->valuestring,
                  cJSON_GetObjectItem (o, "exec_id")->valueint);
    const s_rec_t *rec = zhashx_lookup (self->live, key);
    if (drivers)
        cJSON_AddStringToObject (o, "state", "RUNNING");
    if (drivers && rec && rec->app_id[0])
        cJSON_AddStringToObject (o, "app_id", rec->app_id);
    cJSON_AddNumberToObject (o, "started_ms",
                             rec ? (double) rec->started_ms : 0);
    s_add_sizes (self, key, o);
}

cJSON *
webstate_json (webstate_t *self, bool drivers)
{
    cJSON *list =
        children_json (self->children, drivers ? &drivers_kind : &execs_kind);
    cJSON *o;
    cJSON_ArrayForEach (o, list) s_live_fields (self, drivers, o);
    zlistx_t *ended = self->ended[drivers];
    for (s_rec_t *rec = zlistx_first (ended); list && rec;
         rec = zlistx_next (ended)) {
        o = s_rec_json (rec);
        if (o && s_add_sizes (self, rec->key, o))
            cJSON_AddItemToArray (list, o);
        else
            cJSON_Delete (o);
    }
    return list;
}
