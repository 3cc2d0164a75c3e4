/*  test_resume.c - what a resumed driver reuses (issue 39): stage
    fingerprints (libhearth/fingerprint.c) change with what a task
    computes and nothing else, and an earlier driver's records
    (libhearth/resume.c) make the matching stages held, with exactly the
    outputs that are whole and fit the stage.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libhearth/fingerprint.h"
#include "libhearth/internal.h"
#include "libhearth/resume.h"
#include "libhearth/shuffle.h"
#include "tests/unit/testutil.h"

typedef struct {
    hearth_opts_t *opts;
    hearth_ctx_t ctx;
    hearth_job_t *jobs[8];
    size_t njobs;
} s_fix_t;

static int
s_setup (void **state)
{
    hearth_test_clear_env ();
    s_fix_t *f = calloc (1, sizeof *f);
    char err[256];
    assert_non_null (f);
    assert_non_null (f->opts = hearth_opts_new (err, sizeof err));
    assert_non_null (f->ctx.conf = driver_conf_copy (f->opts, err, sizeof err));
    assert_non_null (f->ctx.jobs = zlistx_new ());
    *state = f;
    return 0;
}

static int
s_teardown (void **state)
{
    s_fix_t *f = *state;
    for (size_t i = 0; i < f->njobs; i++) {
        zlistx_delete (f->ctx.jobs, f->jobs[i]->handle);
        job_destroy (&f->jobs[i]);
    }
    zlistx_destroy (&f->ctx.jobs);
    hearth_conf_destroy (&f->ctx.conf);
    hearth_opts_destroy (&f->opts);
    free (f);
    return 0;
}

/* The job of the tests, with variations: "map" (3 command tasks, argv
   {"echo", word}, into 2 partitions), "out" (2 tasks reading it, into
   /tmp/out-DIR part files); fingerprinted with files. */
typedef struct {
    const char *word;     /* the map's argument */
    const char *map_name; /* "map" */
    uint32_t partitions;  /* 2 */
    int64_t timeout_ms;   /* of the map's tasks: 0 */
    const char *files;    /* "" */
    const char *out_dir;  /* "/tmp/hearth-test-resume" */
} s_def_t;

static const s_def_t s_base = {"w", "map", 2, 0, "", "/tmp/hearth-test-resume"};

static hearth_job_t *
s_job (s_fix_t *f, const s_def_t *d)
{
    hearth_job_t *job = hearth_job_new (&f->ctx, "j");
    assert_non_null (job);
    f->jobs[f->njobs++] = job;
    hearth_stage_t *map = hearth_job_stage (job, d->map_name);
    hearth_stage_t *out = hearth_job_stage (job, "out");
    const char *argv[] = {"echo", d->word, NULL};
    assert_int_equal (hearth_stage_set_timeout (map, d->timeout_ms), 0);
    assert_int_equal (hearth_stage_add_commands (map, argv, NULL, 3), 0);
    assert_int_equal (hearth_stage_set_partitions (map, d->partitions, false),
                      0);
    const char *cat[] = {"cat", NULL};
    assert_int_equal (hearth_stage_add_commands (out, cat, NULL, d->partitions),
                      0);
    assert_int_equal (hearth_stage_input (out, map), 0);
    assert_int_equal (hearth_stage_set_output (out, d->out_dir), 0);
    shuffle_mark_read_whole (job);
    for (size_t i = 0; i < job->nstages; i++)
        assert_int_equal (fingerprint_stage (job->stages[i], d->files), 0);
    return job;
}

static hearth_stage_t *
s_stage (hearth_job_t *job, const char *name)
{
    hearth_stage_t *st = hearth_job_find_stage (job, name);
    assert_non_null (st);
    return st;
}

static void
test_fingerprints (void **state)
{
    s_fix_t *f = *state;
    hearth_job_t *a = s_job (f, &s_base), *b = s_job (f, &s_base);
    const char *map_fp = s_stage (a, "map")->fp;
    assert_int_equal (strlen (map_fp), FINGERPRINT_LEN);
    assert_string_equal (map_fp, s_stage (b, "map")->fp);
    assert_string_equal (s_stage (a, "out")->fp, s_stage (b, "out")->fp);
    /* a timeout does not change what a task writes */
    s_def_t d = s_base;
    d.timeout_ms = 5000;
    assert_string_equal (map_fp, s_stage (s_job (f, &d), "map")->fp);
    /* each of these does, and the stage reading it changes with it */
    s_def_t changes[] = {s_base, s_base, s_base, s_base};
    changes[0].word = "v";
    changes[1].map_name = "map2";
    changes[2].partitions = 3;
    changes[3].files = "0123456789abcdef0123456789abcdef01234567";
    for (size_t i = 0; i < 4; i++) {
        hearth_job_t *c = s_job (f, &changes[i]);
        assert_string_not_equal (map_fp, c->stages[0]->fp);
        assert_string_not_equal (s_stage (a, "out")->fp,
                                 s_stage (c, "out")->fp);
    }
    /* the output directory is the output stage's alone */
    d = s_base;
    d.out_dir = "/tmp/elsewhere";
    hearth_job_t *e = s_job (f, &d);
    assert_string_equal (map_fp, s_stage (e, "map")->fp);
    assert_string_not_equal (s_stage (a, "out")->fp, s_stage (e, "out")->fp);
}

static void
test_files_digest (void **state)
{
    (void) state;
    const char *x[] = {"lib a.so 11", "file b 22"};
    const char *y[] = {"file b 22", "lib a.so 11"};
    const char *z[] = {"file b 23", "lib a.so 11"};
    char dx[FINGERPRINT_LEN + 1], dy[FINGERPRINT_LEN + 1],
        dz[FINGERPRINT_LEN + 1], d0[FINGERPRINT_LEN + 1];
    fingerprint_files (x, 2, dx);
    fingerprint_files (y, 2, dy);
    fingerprint_files (z, 2, dz);
    fingerprint_files (NULL, 0, d0);
    assert_string_equal (dx, dy); /* any order */
    assert_string_not_equal (dx, dz);
    assert_int_equal (strlen (d0), FINGERPRINT_LEN);
}

/* A map record of fp: index, attempt, sizes (n of them). */
static cJSON *
s_map_rec (const char *fp, int index, int attempt, int n)
{
    cJSON *o = cJSON_CreateObject ();
    cJSON_AddStringToObject (o, "stage", fp);
    cJSON_AddStringToObject (o, "stage_name", "map");
    cJSON_AddStringToObject (o, "kind", "map");
    cJSON_AddNumberToObject (o, "index", index);
    cJSON_AddNumberToObject (o, "attempt", attempt);
    cJSON_AddNumberToObject (o, "shuffle_id", 7);
    cJSON_AddStringToObject (o, "worker_id", "worker-1");
    cJSON_AddStringToObject (o, "server", "tcp://10.0.0.1:7000");
    cJSON *sizes = cJSON_AddArrayToObject (o, "sizes");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray (sizes, cJSON_CreateNumber (100 + i));
    return o;
}

static cJSON *
s_part_rec (const char *fp, int index)
{
    cJSON *o = cJSON_CreateObject ();
    cJSON_AddStringToObject (o, "stage", fp);
    cJSON_AddStringToObject (o, "stage_name", "out");
    cJSON_AddStringToObject (o, "kind", "part");
    cJSON_AddNumberToObject (o, "index", index);
    cJSON_AddStringToObject (o, "name", "part-00001");
    cJSON_AddStringToObject (o, "host", "10.0.0.2");
    cJSON_AddNumberToObject (o, "bytes", 42);
    return o;
}

static void
test_match (void **state)
{
    s_fix_t *f = *state;
    hearth_job_t *old = s_job (f, &s_base);
    const char *map_fp = s_stage (old, "map")->fp;
    const char *out_fp = s_stage (old, "out")->fp;
    cJSON *batch = cJSON_CreateArray ();
    cJSON_AddItemToArray (batch, s_map_rec (map_fp, 0, 0, 2));
    cJSON_AddItemToArray (batch, s_map_rec (map_fp, 2, 1, 2));
    cJSON_AddItemToArray (batch, s_map_rec (map_fp, 1, 0, 3)); /* not 2 */
    cJSON_AddItemToArray (batch, s_map_rec (map_fp, 9, 0, 2)); /* no task */
    cJSON *lost = s_map_rec (map_fp, 1, 0, 2);
    cJSON_AddBoolToObject (lost, "lost", true);
    cJSON_AddItemToArray (batch, lost);
    cJSON_AddItemToArray (batch, s_part_rec (out_fp, 1));
    resume_t *r = resume_new ("app-1", 2);
    assert_non_null (r);
    assert_int_equal (resume_add (r, batch), 0);
    cJSON_Delete (batch);
    assert_int_equal (resume_count (r), 5); /* the lost one is not kept */
    assert_int_equal (resume_max_shuffle_id (r), 7);
    assert_true (resume_knows_name (r, "map"));
    assert_false (resume_knows_name (r, "count"));

    hearth_job_t *job = s_job (f, &s_base);
    shuffle_servers_t *servers = shuffle_servers_new ();
    resume_match_t m;
    assert_int_equal (resume_match (r, job, servers, &m), 0);
    assert_int_equal (m.stages, 2);
    assert_int_equal (m.matched, 2);
    assert_int_equal (m.changed, 0);
    assert_int_equal (m.outputs, 3);
    hearth_stage_t *map = s_stage (job, "map"), *out = s_stage (job, "out");
    assert_true (map->held && map->resumed && out->held && out->resumed);
    assert_int_equal (map->shuffle_id, 7);
    assert_true (map->had[0] && !map->had[1] && map->had[2]);
    assert_null (map->maps[1].sizes);
    assert_int_equal (map->maps[2].attempt, 1);
    assert_int_equal (map->maps[2].sizes[1], 101);
    assert_string_equal (shuffle_servers_url (servers, map->maps[0].server),
                         "tcp://10.0.0.1:7000");
    assert_string_equal (shuffle_servers_worker (servers, map->maps[0].server),
                         "worker-1");
    assert_true (!out->had[0] && out->had[1]);
    /* the part's name and host, for the manifest */
    assert_non_null (out->parts = calloc (out->ntasks, sizeof *out->parts));
    resume_fill_parts (r, out);
    assert_string_equal (out->parts[1].name, "part-00001");
    assert_string_equal (out->parts[1].host, "10.0.0.2");
    assert_int_equal (out->parts[1].bytes, 42);
    assert_null (out->parts[0].name);

    /* a changed map: nothing matches, and both stages are said changed */
    s_def_t d = s_base;
    d.word = "v";
    hearth_job_t *other = s_job (f, &d);
    assert_int_equal (resume_match (r, other, servers, &m), 0);
    assert_int_equal (m.matched, 0);
    assert_int_equal (m.changed, 2);
    assert_false (s_stage (other, "map")->held);
    assert_null (s_stage (other, "map")->maps);
    shuffle_servers_destroy (&servers);
    resume_destroy (&r);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_fingerprints, s_setup,
                                         s_teardown),
        cmocka_unit_test (test_files_digest),
        cmocka_unit_test_setup_teardown (test_match, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
