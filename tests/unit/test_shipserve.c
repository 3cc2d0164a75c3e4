/*  test_shipserve.c - a worker's answers to other nodes' FETCH_FILE
    (worker/shipserve.c): a complete cache entry served whatever its
    count of links (the node's executors link it into their work dirs),
    chunk by chunk with a right CRC-32C; a file still being fetched
    served only for the chunks its progress file marks, "not_yet" for
    the others; a symbolic link at an entry's name never followed; no
    file, a bad offset, a request without app_id: refused.
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/crc32c.h"
#include "tests/unit/testutil.h"
#include "worker/shipserve.h"

#define APP "app-20261207000000-0000"
#define HASH "ABCDEF0123"
#define CHUNK HEARTH_FILE_CHUNK_BYTES

static char s_root[64];
static char s_ship[256];

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_root, sizeof s_root, "/tmp/hearth-shipserve-XXXXXX");
    if (!mkdtemp (s_root))
        return -1;
    snprintf (s_ship, sizeof s_ship, "%s/" APP, s_root);
    mkdir (s_ship, 0700);
    snprintf (s_ship, sizeof s_ship, "%s/" APP "/.ship", s_root);
    return mkdir (s_ship, 0700);
}

static int
s_teardown (void **state)
{
    (void) state;
    char cmd[128];
    snprintf (cmd, sizeof cmd, "rm -rf %s", s_root);
    return system (cmd);
}

/* A file at .ship/name of len bytes, byte i = i * 7 + seed. */
static void
s_write (const char *name, size_t len, int seed)
{
    char path[512];
    snprintf (path, sizeof path, "%s/%s", s_ship, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    for (size_t i = 0; i < len; i++)
        fputc ((int) ((i * 7 + (size_t) seed) & 0xff), f);
    fclose (f);
}

/* The answer to a FETCH_FILE of name's chunk at offset, len bytes. */
static hearth_msg_t *
s_ask (const char *name, uint64_t offset, uint64_t len, bool with_app)
{
    cJSON *b = cJSON_CreateObject ();
    if (with_app)
        cJSON_AddStringToObject (b, "app_id", APP);
    cJSON_AddStringToObject (b, "hash", HASH);
    cJSON_AddStringToObject (b, "name", name);
    cJSON_AddNumberToObject (b, "offset", (double) offset);
    cJSON_AddNumberToObject (b, "length", (double) len);
    cJSON_AddNumberToObject (b, "request", 42);
    hearth_msg_t *msg = shipserve_answer (s_root, b);
    cJSON_Delete (b);
    assert_non_null (msg);
    assert_int_equal (hearth_json_int (msg->body, "request", -1), 42);
    return msg;
}

/* msg is ERROR code. */
static void
s_refused (hearth_msg_t *msg, const char *code)
{
    assert_int_equal (msg->cmd, HEARTH_CMD_ERROR);
    assert_string_equal (hearth_json_str (msg->body, "code"), code);
    hearth_msg_destroy (&msg);
}

/* msg is a FILE_CHUNK of len bytes from offset, seed's, its CRC right. */
static void
s_chunk (hearth_msg_t *msg, uint64_t offset, size_t len, int seed)
{
    assert_int_equal (msg->cmd, HEARTH_CMD_FILE_CHUNK);
    zframe_t *f =
        hearth_msg_frame (msg, hearth_json_int (msg->body, "data", -1));
    assert_non_null (f);
    assert_int_equal (zframe_size (f), len);
    const unsigned char *d = zframe_data (f);
    for (size_t i = 0; i < len; i += 4099)
        assert_int_equal (d[i], ((offset + i) * 7 + (size_t) seed) & 0xff);
    assert_int_equal ((uint32_t) hearth_json_int (msg->body, "crc32c", -1),
                      hearth_crc32c (d, len));
    assert_int_equal (hearth_json_int (msg->body, "offset", -1), offset);
    hearth_msg_destroy (&msg);
}

/* A complete entry linked twice more (as executors do) is served. */
static void
test_complete_linked (void **state)
{
    (void) state;
    char entry[512], link1[512], link2[512];
    s_write (HASH "-data.bin", CHUNK + 100, 3);
    snprintf (entry, sizeof entry, "%s/" HASH "-data.bin", s_ship);
    snprintf (link1, sizeof link1, "%s/" APP "/one", s_root);
    snprintf (link2, sizeof link2, "%s/" APP "/two", s_root);
    assert_int_equal (link (entry, link1), 0);
    assert_int_equal (link (entry, link2), 0);
    s_chunk (s_ask ("data.bin", 0, CHUNK, true), 0, CHUNK, 3);
    s_chunk (s_ask ("data.bin", CHUNK, 100, true), CHUNK, 100, 3);
    s_refused (s_ask ("data.bin", CHUNK, 200, true), "bad_offset");
    s_refused (s_ask ("data.bin", 100, 100, true), "bad_offset");
    s_refused (s_ask ("data.bin", 0, CHUNK, false), "bad_request");
    s_refused (s_ask ("other.bin", 0, CHUNK, true), "no_file");
}

/* A file being fetched: only the chunks its progress file marks. */
static void
test_partial (void **state)
{
    (void) state;
    char part[128], have[512];
    snprintf (part, sizeof part, "." HASH "-part.bin.%d.part", 4242);
    s_write (part, 3 * CHUNK, 5);
    snprintf (have, sizeof have, "%s/." HASH "-part.bin.have", s_ship);
    FILE *f = fopen (have, "w");
    assert_non_null (f);
    char header[16] = "4242";
    fwrite (header, 1, sizeof header, f);
    fwrite ("\001\000\001", 1, 3, f);
    fclose (f);
    s_chunk (s_ask ("part.bin", 0, CHUNK, true), 0, CHUNK, 5);
    s_refused (s_ask ("part.bin", CHUNK, CHUNK, true), "not_yet");
    s_chunk (s_ask ("part.bin", 2 * CHUNK, CHUNK, true), 2 * CHUNK, CHUNK, 5);
    s_refused (s_ask ("part.bin", 5 * CHUNK, CHUNK, true), "not_yet");
}

/* A symbolic link at an entry's name is not followed. */
static void
test_symlink (void **state)
{
    (void) state;
    char secret[512], entry[512];
    snprintf (secret, sizeof secret, "%s/secret", s_root);
    FILE *f = fopen (secret, "w");
    fputs ("secret", f);
    fclose (f);
    snprintf (entry, sizeof entry, "%s/" HASH "-planted.bin", s_ship);
    assert_int_equal (symlink (secret, entry), 0);
    s_refused (s_ask ("planted.bin", 0, 6, true), "no_file");
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_complete_linked, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_partial, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_symlink, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
