/*  test_packed.c - unit tests of the packed task and update records
    (libcore/packed.c) and of their check by the decoder.

    Round trips at the limits of every field, the writer's refusals, and
    the reader's refusal of every way a frame can be broken: wrong tag or
    count, records cut short, strings without their NUL or with one inside,
    each field one past its limit.  Error texts name the record.
*/
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/packed.h"
#include "libcore/proto.h"
#include "tests/unit/testutil.h"

static const uint64_t s_max_tid = 9007199254740991ull;

/* A frame of the given tasks. */
static zframe_t *
s_tasks_frame (const hearth_packed_task_t *tasks, size_t n)
{
    hearth_packer_t p = {0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal (hearth_packer_add_task (&p, &tasks[i]), 0);
    assert_int_equal (hearth_packer_count (&p), n);
    zframe_t *frame = hearth_packer_frame (&p);
    hearth_packer_release (&p);
    assert_non_null (frame);
    return frame;
}

static zframe_t *
s_updates_frame (const hearth_packed_update_t *updates, size_t n)
{
    hearth_packer_t p = {0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal (hearth_packer_add_update (&p, &updates[i]), 0);
    zframe_t *frame = hearth_packer_frame (&p);
    hearth_packer_release (&p);
    assert_non_null (frame);
    return frame;
}

static char *
s_string (size_t len, char c)
{
    char *s = malloc (len + 1);
    assert_non_null (s);
    memset (s, c, len);
    s[len] = '\0';
    return s;
}

/* The frame fails the check with a text containing want. */
static void
s_check_fails (zframe_t *frame, const char *tag, size_t nframes,
               const char *want)
{
    hearth_error_t err = {NULL, ""};
    assert_int_equal (hearth_packed_check (frame, tag, nframes, &err), -1);
    assert_string_equal (err.code, "bad_field");
    assert_contains (err.text, want);
}

/* ---- round trips ---------------------------------------------------- */

static void
test_tasks_round_trip (void **state)
{
    (void) state;
    char *fn = s_string (255, 'f'), *arg = s_string (65536, 'a');
    static const char cmd[] = "sh\0-c\0echo {i}\0A=1\0EMPTY=\0";
    hearth_packed_task_t in[] = {
        {0, 0, -1, 0, "noop", NULL, ""},
        {s_max_tid, 1000, 2, 31536000000ll, fn, "libx.so", arg},
        {(7ull << 32) | 9, 3, 0, 500, "pi_sample", NULL, "{i} is not special"},
        {.tid = 5,
         .input = 1,
         .argc = 3,
         .envc = 2,
         .strings = cmd,
         .strings_len = sizeof cmd - 1},
        {.tid = 6, .input = -1, .argc = 1, .strings = "true", .strings_len = 5},
    };
    size_t n = sizeof in / sizeof in[0];
    zframe_t *frame = s_tasks_frame (in, n);
    assert_int_equal (hearth_packed_check (frame, HEARTH_PACKED_TASKS, 3, NULL),
                      0);
    hearth_unpacker_t u;
    assert_int_equal (
        hearth_unpacker_init (&u, frame, HEARTH_PACKED_TASKS, NULL), 0);
    for (size_t i = 0; i < n; i++) {
        hearth_packed_task_t t;
        assert_int_equal (hearth_unpack_task (&u, 3, &t, NULL), 1);
        assert_true (t.tid == in[i].tid);
        assert_int_equal (t.attempt, in[i].attempt);
        assert_int_equal (t.input, in[i].input);
        assert_true (t.timeout_ms == in[i].timeout_ms);
        assert_int_equal (t.argc, in[i].argc);
        assert_int_equal (t.envc, in[i].envc);
        if (in[i].fn) {
            assert_string_equal (t.fn, in[i].fn);
            assert_string_equal (t.arg, in[i].arg);
        }
        else {
            assert_null (t.fn);
            assert_int_equal (t.strings_len, in[i].strings_len);
            assert_memory_equal (t.strings, in[i].strings, t.strings_len);
        }
        if (in[i].lib)
            assert_string_equal (t.lib, in[i].lib);
        else
            assert_null (t.lib);
    }
    hearth_packed_task_t t;
    assert_int_equal (hearth_unpack_task (&u, 3, &t, NULL), 0);
    zframe_destroy (&frame);
    free (fn);
    free (arg);
}

static void
test_updates_round_trip (void **state)
{
    (void) state;
    char *error = s_string (4096, 'e');
    hearth_packed_update_t in[] = {
        {.tid = 1, .state = 3, .result_frame = -1},
        {.tid = s_max_tid,
         .attempt = 1000,
         .state = 6,
         .flags = HEARTH_PACKED_EXIT | HEARTH_PACKED_SIGNAL
                  | HEARTH_PACKED_TRUNCATED | HEARTH_PACKED_RUN_US,
         .exit_status = -65535,
         .signal = 128,
         .run_us = (int64_t) s_max_tid,
         .error = error,
         .result_frame = -1,
         .result = "abc",
         .result_len = 3},
        {.tid = 2,
         .state = 4,
         .flags = HEARTH_PACKED_EXIT,
         .exit_status = 65535,
         .result_frame = 1},
    };
    zframe_t *frame = s_updates_frame (in, 3);
    assert_int_equal (
        hearth_packed_check (frame, HEARTH_PACKED_UPDATES, 2, NULL), 0);
    hearth_unpacker_t u;
    assert_int_equal (
        hearth_unpacker_init (&u, frame, HEARTH_PACKED_UPDATES, NULL), 0);
    for (size_t i = 0; i < 3; i++) {
        hearth_packed_update_t p;
        assert_int_equal (hearth_unpack_update (&u, 2, &p, NULL), 1);
        assert_true (p.tid == in[i].tid);
        assert_int_equal (p.attempt, in[i].attempt);
        assert_int_equal (p.state, in[i].state);
        assert_int_equal (p.flags, in[i].flags);
        assert_int_equal (p.exit_status, in[i].exit_status);
        assert_int_equal (p.signal, in[i].signal);
        assert_true (p.run_us == in[i].run_us);
        assert_int_equal (p.result_frame, in[i].result_frame);
        assert_int_equal (p.result_len, in[i].result_len);
        if (in[i].result_len)
            assert_memory_equal (p.result, in[i].result, in[i].result_len);
        else
            assert_null (p.result);
        if (in[i].error)
            assert_string_equal (p.error, in[i].error);
        else
            assert_null (p.error);
    }
    zframe_destroy (&frame);
    free (error);
}

/* A packer is empty again after its frame is taken, and reusable. */
static void
test_packer_reuse (void **state)
{
    (void) state;
    hearth_packer_t p = {0};
    hearth_packed_task_t t = {1, 0, -1, 0, "f", NULL, "x"};
    assert_int_equal (hearth_packer_add_task (&p, &t), 0);
    assert_int_equal (hearth_packer_add_task (&p, &t), 0);
    zframe_t *two = hearth_packer_frame (&p);
    assert_int_equal (hearth_packer_count (&p), 0);
    assert_int_equal (hearth_packer_size (&p), 0);
    assert_int_equal (hearth_packer_add_task (&p, &t), 0);
    zframe_t *one = hearth_packer_frame (&p);
    assert_int_equal (zframe_size (two), 8 + 2 * 48);
    assert_int_equal (zframe_size (one), 8 + 48);
    assert_int_equal (hearth_packed_check (one, HEARTH_PACKED_TASKS, 0, NULL),
                      0);
    assert_int_equal (hearth_packed_check (two, HEARTH_PACKED_TASKS, 0, NULL),
                      0);
    zframe_destroy (&one);
    zframe_destroy (&two);
    hearth_packer_release (&p);
    hearth_packer_release (&p); /* twice is fine */
}

/* ---- the writer's refusals ---------------------------------------------- */

static void
test_writer_refuses (void **state)
{
    (void) state;
    char *fn = s_string (256, 'f'), *arg = s_string (65537, 'a');
    char *error = s_string (4097, 'e');
    hearth_packed_task_t bad_tasks[] = {
        {s_max_tid + 1, 0, -1, 0, "f", NULL, ""},
        {1, 1001, -1, 0, "f", NULL, ""},
        {1, -1, -1, 0, "f", NULL, ""},
        {1, 0, -2, 0, "f", NULL, ""},
        {1, 0, -1, 31536000001ll, "f", NULL, ""},
        {1, 0, -1, 0, "", NULL, ""},
        {1, 0, -1, 0, NULL, NULL, ""},
        {1, 0, -1, 0, fn, NULL, ""},
        {1, 0, -1, 0, "f", NULL, arg},
        /* both a function and a command; a command with no argv; argv
           and env that are not argc and envc strings */
        {.fn = "f", .argc = 1, .strings = "x", .strings_len = 2},
        {.argc = 0, .envc = 1, .strings = "A=1", .strings_len = 4},
        {.argc = 2, .strings = "x", .strings_len = 2},
        {.argc = 1, .strings = "\0", .strings_len = 1},
        {.argc = 1, .envc = 1, .strings = "x\0NOEQ", .strings_len = 7},
        {.argc = 1, .envc = 1, .strings = "x\0=v", .strings_len = 5},
        {.argc = 1, .strings = "x\0y", .strings_len = 4},
        {.argc = 4097, .strings = "x", .strings_len = 2},
    };
    hearth_packer_t p = {0};
    for (size_t i = 0; i < sizeof bad_tasks / sizeof bad_tasks[0]; i++) {
        errno = 0;
        assert_int_equal (hearth_packer_add_task (&p, &bad_tasks[i]), -1);
        assert_int_equal (errno, EINVAL);
        assert_int_equal (hearth_packer_count (&p), 0);
    }
    hearth_packed_update_t bad_updates[] = {
        {.tid = s_max_tid + 1, .result_frame = -1},
        {.attempt = 1001, .result_frame = -1},
        {.state = 7, .result_frame = -1},
        {.state = -1, .result_frame = -1},
        {.run_us = -1, .result_frame = -1},
        {.error = error, .result_frame = -1},
        {.result_frame = -2},
    };
    for (size_t i = 0; i < sizeof bad_updates / sizeof bad_updates[0]; i++) {
        errno = 0;
        assert_int_equal (hearth_packer_add_update (&p, &bad_updates[i]), -1);
        assert_int_equal (errno, EINVAL);
        assert_int_equal (hearth_packer_count (&p), 0);
    }
    hearth_packer_release (&p);
    free (fn);
    free (arg);
    free (error);
}

/* ---- the reader's refusals ---------------------------------------------- */

/* A copy of frame's bytes, to break. */
static uint8_t *
s_bytes (zframe_t *frame, size_t *size)
{
    *size = zframe_size (frame);
    uint8_t *b = malloc (*size);
    assert_non_null (b);
    memcpy (b, zframe_data (frame), *size);
    return b;
}

static void
s_put32 (uint8_t *p, uint32_t v)
{
    v = htole32 (v);
    memcpy (p, &v, sizeof v);
}

static void
s_put64 (uint8_t *p, uint64_t v)
{
    v = htole64 (v);
    memcpy (p, &v, sizeof v);
}

/* Check b (size bytes) as a frame of tag; expect the failure text. */
static void
s_bytes_fail (const uint8_t *b, size_t size, const char *tag, size_t nframes,
              const char *want)
{
    zframe_t *frame = zframe_new (b, size);
    s_check_fails (frame, tag, nframes, want);
    zframe_destroy (&frame);
}

static void
test_reader_refuses_frames (void **state)
{
    (void) state;
    hearth_packed_task_t t[] = {{1, 0, -1, 0, "f", NULL, "x"},
                                {2, 0, -1, 0, "g", NULL, "y"}};
    zframe_t *frame = s_tasks_frame (t, 2);
    size_t size;
    uint8_t *b = s_bytes (frame, &size);
    /* the other tag, or nothing */
    s_check_fails (frame, HEARTH_PACKED_UPDATES, 0, "expected the tag HUP1");
    s_bytes_fail (b, 5, HEARTH_PACKED_TASKS, 0, "expected the tag HTK1");
    s_bytes_fail (b, 0, HEARTH_PACKED_TASKS, 0, "expected the tag HTK1");
    /* a count beyond the records, below them, beyond the limit */
    s_put32 (b + 4, 3);
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0,
                  "packed task 2: the frame ends inside the record");
    s_put32 (b + 4, 1);
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0,
                  "48 bytes after the last record");
    s_put32 (b + 4, 100001);
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0, "100001 records");
    s_put32 (b + 4, 2);
    /* cut inside the second record, and inside its padding */
    s_bytes_fail (b, size - 20, HEARTH_PACKED_TASKS, 0,
                  "packed task 1: the frame ends inside the record");
    s_bytes_fail (b, size - 1, HEARTH_PACKED_TASKS, 0,
                  "packed task 1: the frame ends inside the record");
    /* a string without its NUL, and one with a NUL inside */
    b[8 + 48 + 40 + 1] = 'X';
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0,
                  "packed task 1: a string holds a NUL or lacks its own");
    b[8 + 48 + 40 + 1] = '\0';
    b[8 + 48 + 40] = '\0';
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0,
                  "packed task 1: a string holds a NUL or lacks its own");
    free (b);
    zframe_destroy (&frame);
}

/* Each task field one past its limit, written over a valid record. */
static void
test_reader_refuses_task_fields (void **state)
{
    (void) state;
    hearth_packed_task_t t = {1, 0, -1, 0, "f", "lib", "x"};
    zframe_t *frame = s_tasks_frame (&t, 1);
    size_t size;
    uint8_t *good = s_bytes (frame, &size), *b = malloc (size);
    uint8_t *r = b + 8;
    struct {
        size_t offset; /* in the record */
        int width;     /* 4 or 8 */
        uint64_t value;
        const char *want;
    } cases[] = {
        {0, 8, s_max_tid + 1, "packed task 0: tid above 2^53 - 1"},
        {8, 4, 1001, "attempt above 1000"},
        {12, 4, (uint32_t) -2, "input is not a binary frame index"},
        {12, 4, 1, "input is not a binary frame index"},
        {16, 8, 31536000001ull, "timeout_ms above 31536000000"},
        {24, 4, 0 | (3u << 16),
         "expected exactly one of a function and "
         "a command"},
        {24, 4, 256, "a string length out of its limits"},
        {28, 4, 65537, "a string length out of its limits"},
        {32, 4, 1, "expected exactly one of a function and a command"},
        {32, 4, 4097, "a string length out of its limits"},
        {32, 4, 1025u << 16, "a string length out of its limits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy (b, good, size);
        if (cases[i].width == 8)
            s_put64 (r + cases[i].offset, cases[i].value);
        else
            s_put32 (r + cases[i].offset, (uint32_t) cases[i].value);
        s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 1, cases[i].want);
    }
    /* an unsafe library name */
    memcpy (b, good, size);
    memcpy (r + 40 + 2, "../", 3);
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 1,
                  "lib is not a safe file name");
    free (b);
    free (good);
    zframe_destroy (&frame);
}

/* A command whose strings do not match argc and envc. */
static void
test_reader_refuses_commands (void **state)
{
    (void) state;
    hearth_packed_task_t t = {.tid = 1,
                              .input = -1,
                              .argc = 1,
                              .envc = 1,
                              .strings = "ls\0A=b",
                              .strings_len = 7};
    zframe_t *frame = s_tasks_frame (&t, 1);
    size_t size;
    uint8_t *b = s_bytes (frame, &size);
    uint8_t *strings = b + 8 + 40 + 3;
    strings[4] = 'x'; /* "A=b" becomes "Axb": no '=' */
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0,
                  "argv and env are not argc and envc strings");
    strings[4] = '=';
    strings[2] = 'l'; /* the argv string loses its NUL: one string short */
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0,
                  "argv and env are not argc and envc strings");
    strings[2] = '\0';
    assert_int_equal (hearth_packed_check (frame, HEARTH_PACKED_TASKS, 0, NULL),
                      0);
    free (b);
    zframe_destroy (&frame);
}

/* Arguments after the program may be empty; the program may not. */
static void
test_empty_arguments (void **state)
{
    (void) state;
    hearth_packed_task_t t = {.tid = 1,
                              .input = -1,
                              .argc = 3,
                              .strings = "ls\0\0x",
                              .strings_len = 6};
    zframe_t *frame = s_tasks_frame (&t, 1);
    hearth_unpacker_t u;
    hearth_packed_task_t back;
    assert_int_equal (
        hearth_unpacker_init (&u, frame, HEARTH_PACKED_TASKS, NULL), 0);
    assert_int_equal (hearth_unpack_task (&u, 0, &back, NULL), 1);
    assert_int_equal (back.argc, 3);
    assert_memory_equal (back.strings, "ls\0\0x", 6);
    size_t size;
    uint8_t *b = s_bytes (frame, &size);
    memcpy (b + 8 + 40 + 3, "\0ls\0", 4); /* "", "ls", "x": no program */
    s_bytes_fail (b, size, HEARTH_PACKED_TASKS, 0,
                  "argv and env are not argc and envc strings");
    free (b);
    zframe_destroy (&frame);
}

static void
test_reader_refuses_update_fields (void **state)
{
    (void) state;
    hearth_packed_update_t u = {.tid = 1,
                                .state = 3,
                                .error = "no",
                                .result_frame = -1,
                                .result = "r",
                                .result_len = 1};
    zframe_t *frame = s_updates_frame (&u, 1);
    size_t size;
    uint8_t *good = s_bytes (frame, &size), *b = malloc (size);
    uint8_t *r = b + 8;
    struct {
        size_t offset;
        int width; /* 1, 2, 4 or 8 */
        uint64_t value;
        const char *want;
    } cases[] = {
        {0, 8, s_max_tid + 1, "packed update 0: tid above 2^53 - 1"},
        {8, 4, 1001, "attempt above 1000"},
        {12, 1, 7, "state is not a task state"},
        {14, 2, 4097, "error longer than 4096 bytes"},
        {14, 2, 40, "the frame ends inside the record"},
        {16, 4, 65536, "out of its limits"},
        {16, 4, (uint32_t) -65536, "out of its limits"},
        {20, 4, 129, "out of its limits"},
        {24, 8, s_max_tid + 1, "out of its limits"},
        {32, 4, 0, "result is not a binary frame index"}, /* + inline */
        {32, 4, (uint32_t) -2, "result is not a binary frame index"},
        {36, 4, 100, "the frame ends inside the record"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy (b, good, size);
        uint8_t *p = r + cases[i].offset;
        if (cases[i].width == 8)
            s_put64 (p, cases[i].value);
        else if (cases[i].width == 4)
            s_put32 (p, (uint32_t) cases[i].value);
        else if (cases[i].width == 2) {
            uint16_t v = htole16 ((uint16_t) cases[i].value);
            memcpy (p, &v, 2);
        }
        else
            *p = (uint8_t) cases[i].value;
        s_bytes_fail (b, size, HEARTH_PACKED_UPDATES, 1, cases[i].want);
    }
    free (b);
    free (good);
    zframe_destroy (&frame);
}

/* ---- through the decoder ------------------------------------------------ */

static zmsg_t *
s_wire (const char *cmd, const char *body, zframe_t **frame_p)
{
    zmsg_t *zmsg = zmsg_new ();
    zmsg_addstr (zmsg, HEARTH_PROTO_TAG);
    zmsg_addstr (zmsg, cmd);
    zmsg_addstr (zmsg, body);
    zmsg_append (zmsg, frame_p);
    return zmsg;
}

static void
test_decoder_checks_packed (void **state)
{
    (void) state;
    hearth_packed_task_t t = {1, 0, 0, 0, "f", NULL, "x"};
    zframe_t *frame = s_tasks_frame (&t, 1);
    hearth_error_t err = {NULL, ""};
    /* input 0 is the packed frame itself: a valid index */
    zmsg_t *zmsg =
        s_wire ("LAUNCH_TASKS", "{\"tasks\":[],\"packed\":0}", &frame);
    hearth_msg_t *msg = hearth_msg_decode (&zmsg, &err);
    assert_non_null (msg);
    hearth_msg_destroy (&msg);
    /* the same record naming frame 1, which is not there */
    t.input = 1;
    frame = s_tasks_frame (&t, 1);
    zmsg = s_wire ("LAUNCH_TASKS", "{\"tasks\":[],\"packed\":0}", &frame);
    assert_null (hearth_msg_decode (&zmsg, &err));
    assert_string_equal (err.code, "bad_field");
    assert_string_equal (err.text, "LAUNCH_TASKS: packed task 0: input is "
                                   "not a binary frame index");
    /* an update frame where tasks are expected */
    hearth_packed_update_t u = {.tid = 1, .state = 3, .result_frame = -1};
    frame = s_updates_frame (&u, 1);
    zmsg = s_wire ("LAUNCH_TASKS", "{\"tasks\":[],\"packed\":0}", &frame);
    assert_null (hearth_msg_decode (&zmsg, &err));
    assert_contains (err.text, "expected the tag HTK1");
    /* and the encoder checks what it sends */
    frame = s_updates_frame (&u, 1);
    msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    cJSON_AddArrayToObject (msg->body, "updates");
    cJSON_AddNumberToObject (msg->body, "packed", 0);
    hearth_msg_add_frame (msg, &frame);
    zmsg = hearth_msg_encode (&msg, &err);
    assert_non_null (zmsg);
    msg = hearth_msg_decode (&zmsg, &err);
    assert_non_null (msg);
    hearth_msg_destroy (&msg);
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_tasks_round_trip),
        cmocka_unit_test (test_updates_round_trip),
        cmocka_unit_test (test_packer_reuse),
        cmocka_unit_test (test_writer_refuses),
        cmocka_unit_test (test_reader_refuses_frames),
        cmocka_unit_test (test_reader_refuses_task_fields),
        cmocka_unit_test (test_reader_refuses_commands),
        cmocka_unit_test (test_empty_arguments),
        cmocka_unit_test (test_reader_refuses_update_fields),
        cmocka_unit_test (test_decoder_checks_packed),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
