/*  test_jsonprint.c - hearth_json_print prints what cJSON_PrintUnformatted
    prints, byte for byte: numbers on both sides of every fast-path
    boundary, random doubles, every escaped byte, nesting, and texts that
    outgrow the caller's buffer.  (The fuzz target checks the same on
    every body it decodes.)
*/
#include "config.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "libcore/jsonprint.h"
#include "tests/unit/testutil.h"

/* json prints as cJSON prints it, with a stack buffer of size bytes. */
static void
s_same (const cJSON *json, size_t size)
{
    char *want = cJSON_PrintUnformatted (json);
    assert_non_null (want);
    char stack[64];
    hearth_jsonbuf_t buf;
    const char *got =
        hearth_json_print (json, &buf, size ? stack : NULL,
                           size < sizeof stack ? size : sizeof stack);
    assert_non_null (got);
    if (strcmp (got, want) != 0)
        fail_msg ("printed '%s', cJSON prints '%s'", got, want);
    assert_int_equal (buf.len, strlen (want));
    hearth_jsonbuf_release (&buf);
    free (want);
}

static void
s_number_same (double d)
{
    cJSON *n = cJSON_CreateNumber (d);
    s_same (n, 64);
    cJSON_Delete (n);
}

static void
test_numbers (void **state)
{
    (void) state;
    static const double edges[] = {0,
                                   1,
                                   -1,
                                   2147483647.0,
                                   2147483648.0,
                                   -2147483648.0,
                                   -2147483649.0,
                                   4294967296.0,
                                   (double) ((1ull << 32) | 12345),
                                   999999999999999.0,
                                   1e15,
                                   1e15 + 1,
                                   -999999999999999.0,
                                   -1e15,
                                   9007199254740991.0,
                                   9007199254740992.0,
                                   1e17,
                                   1e300,
                                   -1e300,
                                   0.5,
                                   0.1,
                                   1.0 / 3,
                                   2.0 / 3,
                                   123.456,
                                   1e-300,
                                   DBL_MIN,
                                   DBL_MAX,
                                   -DBL_MAX,
                                   3.14159265358979,
                                   31536000000.0,
                                   1e15 - 0.5,
                                   1e14 + 0.5};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        s_number_same (edges[i]);
    /* -0: cJSON 1.7.15 prints "-0" (later ones "0"); either way it reads
       back as zero */
    cJSON *z = cJSON_CreateNumber (-0.0);
    hearth_jsonbuf_t buf;
    const char *text = hearth_json_print (z, &buf, NULL, 0);
    assert_non_null (text);
    assert_true (strtod (text, NULL) == 0);
    hearth_jsonbuf_release (&buf);
    cJSON_Delete (z);
    s_number_same (NAN);
    s_number_same (INFINITY);
    s_number_same (-INFINITY);
    /* random doubles of every magnitude, and random integers */
    srandom (7);
    for (int i = 0; i < 20000; i++) {
        double mant = (double) random () / RAND_MAX;
        int exp = (int) (random () % 80) - 40;
        s_number_same ((random () & 1 ? -1 : 1) * mant * pow (10, exp));
        s_number_same ((double) ((int64_t) random () * (random () % 100000)));
    }
}

static void
test_strings (void **state)
{
    (void) state;
    char text[300];
    size_t n = 0;
    for (int c = 1; c < 256; c++)
        text[n++] = (char) c;
    text[n] = '\0';
    cJSON *s = cJSON_CreateString (text);
    s_same (s, 64);
    s_same (s, 0);
    cJSON_Delete (s);
    s = cJSON_CreateString ("");
    s_same (s, 64);
    cJSON_Delete (s);
    /* keys are escaped too */
    cJSON *o = cJSON_CreateObject ();
    cJSON_AddNumberToObject (o, "a\"b\\c\n", 1);
    cJSON_AddStringToObject (o, "", "\x01\x1f");
    s_same (o, 64);
    cJSON_Delete (o);
}

static void
test_structures (void **state)
{
    (void) state;
    cJSON *o = cJSON_Parse (
        "{\"tasks\":[],\"packed\":3,\"o\":{},\"a\":[1,[2,[3,{\"x\":null}]],"
        "true,false,\"s\"],\"tid\":4294967299,\"run_us\":12.5}");
    assert_non_null (o);
    for (size_t size = 0; size <= 64; size += 8)
        s_same (o, size); /* grows from every stack size */
    cJSON *big = cJSON_CreateArray ();
    for (int i = 0; i < 5000; i++)
        cJSON_AddItemToArray (big, cJSON_CreateNumber (i * 4294967296.0 + i));
    cJSON_AddItemToObject (o, "big", big);
    s_same (o, 64);
    cJSON_Delete (o);
    hearth_jsonbuf_t buf;
    assert_null (hearth_json_print (NULL, &buf, NULL, 0));
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_numbers),
        cmocka_unit_test (test_strings),
        cmocka_unit_test (test_structures),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
