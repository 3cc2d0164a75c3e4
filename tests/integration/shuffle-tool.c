/*  shuffle-tool.c - the shuffle's pieces driven from a test script.

        shuffle-tool write DATA R [--sort]
            standard input's records into map output DATA (and
            DATA.index) of R partitions; prints each partition's stored
            bytes, one a line
        shuffle-tool partition R
            each record of standard input prefixed by its partition and a
            TAB (the reference of the tests)
        shuffle-tool fetch [--sorted] [--dir D] [--timeout MS]
                     [--local-url URL --local-dir DIR]
                     APP TOKEN SHUFFLE PARTITION URL[,KEY]:MAP:ATTEMPT:LENGTH...
            fetch the blocks (executor/fetch.c) and print the partition's
            records, merged (libcore/blockmerge.c), on standard output;
            exit 3 with "FETCH_FAILED map=M attempt=A url=U: REASON" on
            standard error when a map output cannot be had, 1 on any other
            error
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "executor/fetch.h"
#include "libcore/blockmerge.h"
#include "libcore/partwriter.h"
#include "libcore/records.h"
#include "libcore/sock.h"

static int
s_write (int argc, char **argv)
{
    if (argc < 4)
        return 2;
    hearth_partwriter_opts_t opts = {
        .path = argv[2],
        .partitions = (uint32_t) atoi (argv[3]),
        .sort = argc > 4 && strcmp (argv[4], "--sort") == 0};
    hearth_error_t err;
    hearth_partwriter_t *w = hearth_partwriter_new (&opts, &err);
    char buf[65536];
    size_t n;
    while (w && (n = fread (buf, 1, sizeof buf, stdin)) > 0)
        if (hearth_partwriter_write (w, buf, n, &err) < 0)
            break;
    if (!w || hearth_partwriter_finish (w, &err) < 0) {
        fprintf (stderr, "shuffle-tool: %s\n", err.text);
        hearth_partwriter_destroy (&w);
        return 1;
    }
    for (uint32_t p = 0; p < opts.partitions; p++)
        printf ("%llu\n",
                (unsigned long long) hearth_partwriter_parts (w)[p].length);
    hearth_partwriter_destroy (&w);
    return 0;
}

static int
s_partition (int argc, char **argv)
{
    if (argc < 3)
        return 2;
    uint32_t r = (uint32_t) atoi (argv[2]);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline (&line, &cap, stdin)) > 0) {
        size_t n = (size_t) len - (line[len - 1] == '\n');
        printf ("%u\t%.*s\n", hearth_record_partition (line, n, r), (int) n,
                line);
    }
    free (line);
    return 0;
}

/* URL[,KEY]:MAP:ATTEMPT:LENGTH into b (strings point into spec). */
static int
s_block (char *spec, fetch_block_t *b)
{
    char *c3 = strrchr (spec, ':');
    if (!c3)
        return -1;
    *c3 = '\0';
    char *c2 = strrchr (spec, ':');
    if (!c2)
        return -1;
    *c2 = '\0';
    char *c1 = strrchr (spec, ':');
    if (!c1)
        return -1;
    *c1 = '\0';
    char *comma = strchr (spec, ',');
    if (comma)
        *comma = '\0';
    *b = (fetch_block_t){
        spec, comma ? comma + 1 : NULL, (uint32_t) strtoul (c1 + 1, NULL, 10),
        (uint32_t) strtoul (c2 + 1, NULL, 10), strtoull (c3 + 1, NULL, 10)};
    return 0;
}

static int
s_fetch (int argc, char **argv)
{
    fetch_opts_t o = {.dir = "."};
    bool sorted = false;
    int i = 2;
    for (; i < argc && strncmp (argv[i], "--", 2) == 0; i++) {
        if (strcmp (argv[i], "--sorted") == 0)
            sorted = true;
        else if (i + 1 < argc && strcmp (argv[i], "--dir") == 0)
            o.dir = argv[++i];
        else if (i + 1 < argc && strcmp (argv[i], "--timeout") == 0)
            o.timeout_ms = atoll (argv[++i]);
        else if (i + 1 < argc && strcmp (argv[i], "--local-url") == 0)
            o.local_url = argv[++i];
        else if (i + 1 < argc && strcmp (argv[i], "--local-dir") == 0)
            o.local_dir = argv[++i];
        else
            return 2;
    }
    if (argc - i < 4)
        return 2;
    o.app_id = argv[i];
    o.token = argv[i + 1];
    o.shuffle = (uint32_t) atoi (argv[i + 2]);
    o.partition = (uint32_t) atoi (argv[i + 3]);
    i += 4;
    size_t n = (size_t) (argc - i);
    fetch_block_t *blocks = calloc (n ? n : 1, sizeof *blocks);
    for (size_t k = 0; k < n; k++)
        if (s_block (argv[i + (int) k], &blocks[k]) < 0)
            return 2;
    hearth_zsys_init ();
    hearth_block_ref_t *refs;
    fetch_failure_t failure;
    hearth_error_t err;
    int rc = fetch_blocks (&o, blocks, n, &refs, &failure, &err);
    if (rc == 1) {
        fprintf (stderr, "FETCH_FAILED map=%u attempt=%u url=%s: %s\n",
                 failure.map, failure.attempt, failure.url, failure.reason);
        free (blocks);
        return 3;
    }
    if (rc < 0) {
        fprintf (stderr, "shuffle-tool: %s\n", err.text);
        free (blocks);
        return 1;
    }
    hearth_blockmerge_t *bm =
        hearth_blockmerge_new (refs, n, sorted, 0, o.dir, &err);
    const char *rec;
    size_t len;
    while (bm && (rc = hearth_blockmerge_next (bm, &rec, &len, &err)) == 1)
        fwrite (rec, 1, len, stdout);
    if (!bm || rc < 0)
        fprintf (stderr, "shuffle-tool: %s\n", err.text);
    hearth_blockmerge_destroy (&bm);
    fetch_refs_free (refs, n);
    free (blocks);
    return rc < 0 ? 1 : 0;
}

int
main (int argc, char **argv)
{
    int rc = 2;
    if (argc > 1 && strcmp (argv[1], "write") == 0)
        rc = s_write (argc, argv);
    else if (argc > 1 && strcmp (argv[1], "partition") == 0)
        rc = s_partition (argc, argv);
    else if (argc > 1 && strcmp (argv[1], "fetch") == 0)
        rc = s_fetch (argc, argv);
    if (rc == 2)
        fprintf (stderr, "usage: see shuffle-tool.c\n");
    return rc;
}
