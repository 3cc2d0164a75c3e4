/*  test_schema.c - unit tests of the declarative body checker
    (libcore/schema.c), on a schema of its own that has one field of every
    type, so that each type's rule and error text is pinned down here and
    test_proto.c can stay with the commands.
*/
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "libcore/ids.h"
#include "libcore/schema.h"
#include "tests/unit/testutil.h"

static const char *const s_colors[] = {"red", "green", NULL};
static const hearth_field_t s_str_elem[] = {
    {"", HEARTH_F_STR, true, 1, 8, 0, NULL, NULL}};
static const hearth_field_t s_point[] = {
    {"x", HEARTH_F_INT, true, 0, 100, 0, NULL, NULL},
    {"y", HEARTH_F_INT, false, 0, 100, 0, NULL, NULL},
    {NULL, 0, false, 0, 0, 0, NULL, NULL}};
static const hearth_field_t s_point_elem[] = {
    {"", HEARTH_F_OBJECT, true, 0, 0, 0, NULL, s_point}};

/* One field of every type; only "s" is required. */
static const hearth_field_t s_schema[] = {
    {"s", HEARTH_F_STR, true, 2, 5, 0, NULL, NULL},
    {"label", HEARTH_F_LABEL, false, 1, 40, 0, NULL, NULL},
    {"i", HEARTH_F_INT, false, -10, 10, 0, NULL, NULL},
    {"n", HEARTH_F_NUM, false, 0, 1, 0, NULL, NULL},
    {"b", HEARTH_F_BOOL, false, 0, 0, 0, NULL, NULL},
    {"app", HEARTH_F_ID, false, 0, 0, HEARTH_ID_APP, NULL, NULL},
    {"file", HEARTH_F_NAME, false, 0, 0, 0, NULL, NULL},
    {"color", HEARTH_F_ENUM, false, 0, 0, 0, s_colors, NULL},
    {"frame", HEARTH_F_FRAME, false, 0, 0, 0, NULL, NULL},
    {"list", HEARTH_F_ARRAY, false, 1, 3, 0, NULL, s_str_elem},
    {"points", HEARTH_F_ARRAY, false, 0, 10, 0, NULL, s_point_elem},
    {"pos", HEARTH_F_OBJECT, false, 0, 0, 0, NULL, s_point},
    {"env", HEARTH_F_MAP, false, 0, 2, 0, NULL, s_str_elem},
    {"any", HEARTH_F_ANY, false, 0, 0, 0, NULL, NULL},
    {NULL, 0, false, 0, 0, 0, NULL, NULL}};

/* Parse a body written with single quotes standing for double quotes. */
static cJSON *
s_json (const char *squoted)
{
    char *text = strdup (squoted);
    assert_non_null (text);
    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    cJSON *json = cJSON_Parse (text);
    if (!json)
        fail_msg ("test bug: bad JSON: %s", text);
    free (text);
    return json;
}

/* Check a body against s_schema with nframes frames; return the rc and
   leave the error in *err. */
static int
s_check (const char *squoted, size_t nframes, hearth_error_t *err)
{
    cJSON *body = s_json (squoted);
    hearth_error_clear (err);
    int rc = hearth_schema_check (body, s_schema, nframes, err);
    cJSON_Delete (body);
    return rc;
}

static void
s_ok (const char *squoted, size_t nframes)
{
    hearth_error_t err;
    if (s_check (squoted, nframes, &err) < 0)
        fail_msg ("%s rejected: %s", squoted, err.text);
}

/* Expect rejection with code and exactly this text. */
static void
s_rejects (const char *squoted, size_t nframes, const char *code,
           const char *text)
{
    hearth_error_t err;
    if (s_check (squoted, nframes, &err) == 0)
        fail_msg ("%s accepted, expected: %s", squoted, text);
    assert_string_equal (err.code, code);
    assert_string_equal (err.text, text);
}

static void
test_full_body_accepted (void **state)
{
    (void) state;
    s_ok ("{'s':'ab'}", 0);
    s_ok ("{'s':'abcde','i':-10,'n':0.5,'b':false,"
          "'app':'app-20261129201435-0001','file':'lib_x-1.2+3.so',"
          "'color':'green','frame':1,'list':['a','abcdefgh'],"
          "'points':[{'x':0},{'x':100,'y':3}],'pos':{'x':1,'extra':[]},"
          "'env':{'A':'1','B':'22'},'any':[null,{'deep':[1]}],'unknown':7}",
          2);
}

static void
test_missing_required (void **state)
{
    (void) state;
    s_rejects ("{}", 0, "bad_field", "missing required field 's'");
    s_rejects ("{'s':'ab','points':[{'x':1},{'y':1}]}", 0, "bad_field",
               "missing required field 'points[1].x'");
    s_rejects ("{'s':'ab','pos':{}}", 0, "bad_field",
               "missing required field 'pos.x'");
    /* member names are case-sensitive */
    s_rejects ("{'S':'ab'}", 0, "bad_field", "missing required field 's'");
}

static void
test_strings (void **state)
{
    (void) state;
    s_ok ("{'s':'12'}", 0);
    s_ok ("{'s':'12345'}", 0);
    s_rejects ("{'s':'1'}", 0, "bad_field",
               "field 's': expected a string of 2 to 5 bytes, got \"1\"");
    s_rejects ("{'s':'123456'}", 0, "bad_field",
               "field 's': expected a string of 2 to 5 bytes, got "
               "\"123456\"");
    s_rejects ("{'s':12}", 0, "bad_field",
               "field 's': expected a string of 2 to 5 bytes, got 12");
    /* long strings are described by their length, not quoted */
    char body[128];
    snprintf (body, sizeof body, "{'s':'%045d'}", 0);
    s_rejects (body, 0, "bad_field",
               "field 's': expected a string of 2 to 5 bytes, got a string "
               "of 45 bytes");
    /* lengths are in bytes: "é" is two */
    s_ok ("{'s':'\xc3\xa9'}", 0);
}

/* A label is a string without control characters (C0, DEL, C1 in UTF-8);
   the refusal quotes what it found with them escaped, so that the message
   is safe to log and to print.  A plain string takes them. */
static void
test_labels (void **state)
{
    (void) state;
    s_ok ("{'s':'ab','label':'etl nightly caf\xc3\xa9 \xc2\xa0(1)'}", 0);
    s_ok ("{'s':'a\\nb'}", 0); /* a string: free text */
    s_rejects ("{'s':'ab','label':'evil\\nforged\\u001b[31m'}", 0, "bad_field",
               "field 'label': expected a string of 1 to 40 bytes without "
               "control characters, got \"evil\\nforged\\x1b[31m\"");
    s_rejects ("{'s':'ab','label':'a\\u007f'}", 0, "bad_field",
               "field 'label': expected a string of 1 to 40 bytes without "
               "control characters, got \"a\\x7f\"");
    s_rejects ("{'s':'ab','label':'csi\\u009b2J'}", 0, "bad_field",
               "field 'label': expected a string of 1 to 40 bytes without "
               "control characters, got \"csi\\u009b2J\"");
    s_rejects ("{'s':'ab','label':'\\t'}", 0, "bad_field",
               "field 'label': expected a string of 1 to 40 bytes without "
               "control characters, got \"\\t\"");
    s_rejects ("{'s':'ab','label':''}", 0, "bad_field",
               "field 'label': expected a string of 1 to 40 bytes without "
               "control characters, got \"\"");
    /* a plain string's refusal quotes it escaped too */
    s_rejects ("{'s':'\\u001b[2J!!'}", 0, "bad_field",
               "field 's': expected a string of 2 to 5 bytes, got "
               "\"\\x1b[2J!!\"");
}

static void
test_integers_and_numbers (void **state)
{
    (void) state;
    s_ok ("{'s':'ab','i':10}", 0);
    s_ok ("{'s':'ab','i':-10}", 0);
    s_ok ("{'s':'ab','i':3.0}", 0);
    s_rejects ("{'s':'ab','i':11}", 0, "bad_field",
               "field 'i': expected an integer -10..10, got 11");
    s_rejects ("{'s':'ab','i':-11}", 0, "bad_field",
               "field 'i': expected an integer -10..10, got -11");
    s_rejects ("{'s':'ab','i':0.5}", 0, "bad_field",
               "field 'i': expected an integer -10..10, got 0.5");
    s_rejects ("{'s':'ab','i':true}", 0, "bad_field",
               "field 'i': expected an integer -10..10, got a boolean");
    s_ok ("{'s':'ab','n':1}", 0);
    s_ok ("{'s':'ab','n':0.25}", 0);
    s_rejects ("{'s':'ab','n':1.5}", 0, "bad_field",
               "field 'n': expected a number 0..1, got 1.5");
    s_rejects ("{'s':'ab','n':'0'}", 0, "bad_field",
               "field 'n': expected a number 0..1, got \"0\"");

    /* numbers that JSON cannot carry but a cJSON tree can */
    cJSON *body = s_json ("{'s':'ab'}");
    cJSON_AddNumberToObject (body, "n", NAN);
    hearth_error_t err;
    assert_int_equal (hearth_schema_check (body, s_schema, 0, &err), -1);
    assert_contains (err.text, "field 'n': expected a number 0..1");
    cJSON_Delete (body);
    body = s_json ("{'s':'ab'}");
    cJSON_AddNumberToObject (body, "i", INFINITY);
    assert_int_equal (hearth_schema_check (body, s_schema, 0, &err), -1);
    assert_contains (err.text, "got inf");
    cJSON_Delete (body);
}

static void
test_bool_enum (void **state)
{
    (void) state;
    s_ok ("{'s':'ab','b':true}", 0);
    s_rejects ("{'s':'ab','b':'true'}", 0, "bad_field",
               "field 'b': expected a boolean, got \"true\"");
    s_rejects ("{'s':'ab','b':1}", 0, "bad_field",
               "field 'b': expected a boolean, got 1");
    s_ok ("{'s':'ab','color':'red'}", 0);
    s_rejects ("{'s':'ab','color':'RED'}", 0, "bad_field",
               "field 'color': expected one of red, green, got \"RED\"");
    s_rejects ("{'s':'ab','color':null}", 0, "bad_field",
               "field 'color': expected one of red, green, got null");
}

static void
test_ids_and_names (void **state)
{
    (void) state;
    s_rejects ("{'s':'ab','app':'app-20261129201435-0001/..'}", 0, "bad_field",
               "field 'app': expected a valid id, got "
               "\"app-20261129201435-0001/..\"");
    s_rejects ("{'s':'ab','app':'driver-20261129201435-0001'}", 0, "bad_field",
               "field 'app': expected a valid id, got "
               "\"driver-20261129201435-0001\"");
    static const char *const bad_names[] = {
        "../x", "/etc/passwd", "a/b", ".bashrc", "..", ".", "-rf", "", "a b",
    };
    for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++) {
        char body[96], text[128];
        snprintf (body, sizeof body, "{'s':'ab','file':'%s'}", bad_names[i]);
        snprintf (text, sizeof text,
                  "field 'file': expected a safe file name, got \"%s\"",
                  bad_names[i]);
        s_rejects (body, 0, "bad_field", text);
    }
}

static void
test_frames (void **state)
{
    (void) state;
    s_ok ("{'s':'ab','frame':0}", 1);
    s_ok ("{'s':'ab','frame':4}", 5);
    s_rejects ("{'s':'ab','frame':5}", 5, "bad_frame",
               "field 'frame': expected a binary frame index 0..4, got 5");
    s_rejects ("{'s':'ab','frame':-1}", 5, "bad_frame",
               "field 'frame': expected a binary frame index 0..4, got -1");
    s_rejects ("{'s':'ab','frame':1.5}", 5, "bad_frame",
               "field 'frame': expected a binary frame index 0..4, got 1.5");
    s_rejects ("{'s':'ab','frame':'0'}", 5, "bad_frame",
               "field 'frame': expected a binary frame index 0..4, got "
               "\"0\"");
    s_rejects ("{'s':'ab','frame':0}", 0, "bad_frame",
               "field 'frame': expected a binary frame index (there are "
               "none), got 0");
}

static void
test_containers (void **state)
{
    (void) state;
    s_rejects ("{'s':'ab','list':[]}", 0, "bad_field",
               "field 'list': expected an array of 1 to 3 elements, got an "
               "array");
    s_rejects ("{'s':'ab','list':['a','b','c','d']}", 0, "bad_field",
               "field 'list': expected an array of 1 to 3 elements, got an "
               "array");
    s_rejects ("{'s':'ab','list':{'a':'b'}}", 0, "bad_field",
               "field 'list': expected an array of 1 to 3 elements, got an "
               "object");
    s_rejects ("{'s':'ab','list':['a','']}", 0, "bad_field",
               "field 'list[1]': expected a string of 1 to 8 bytes, got "
               "\"\"");
    s_rejects ("{'s':'ab','points':[{'x':1},{'x':1,'y':101}]}", 0, "bad_field",
               "field 'points[1].y': expected an integer 0..100, got 101");
    s_rejects ("{'s':'ab','pos':[1]}", 0, "bad_field",
               "field 'pos': expected an object, got an array");
    s_rejects ("{'s':'ab','env':{'A':'1','B':'2','C':'3'}}", 0, "bad_field",
               "field 'env': expected an object of 0 to 2 members, got an "
               "object");
    s_rejects ("{'s':'ab','env':{'PATH':7}}", 0, "bad_field",
               "field 'env.PATH': expected a string of 1 to 8 bytes, got 7");
    s_rejects ("{'s':'ab','env':['x']}", 0, "bad_field",
               "field 'env': expected an object of 0 to 2 members, got an "
               "array");
}

static void
test_not_an_object (void **state)
{
    (void) state;
    hearth_error_t err;
    cJSON *array = cJSON_CreateArray ();
    assert_int_equal (hearth_schema_check (array, s_schema, 0, &err), -1);
    assert_string_equal (err.code, "bad_json");
    assert_string_equal (err.text, "the body is an array, not an object");
    cJSON_Delete (array);
    assert_int_equal (hearth_schema_check (NULL, s_schema, 0, &err), -1);
    assert_string_equal (err.code, "bad_json");
    /* no error structure: still -1, nothing written */
    cJSON *body = s_json ("{}");
    assert_int_equal (hearth_schema_check (body, s_schema, 0, NULL), -1);
    cJSON_Delete (body);
}

/* A path longer than the error text is cut, never overflowed. */
static void
test_long_path (void **state)
{
    (void) state;
    char key[300];
    memset (key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    cJSON *body = s_json ("{'s':'ab','env':{}}");
    cJSON_AddNumberToObject (cJSON_GetObjectItem (body, "env"), key, 1);
    hearth_error_t err;
    assert_int_equal (hearth_schema_check (body, s_schema, 0, &err), -1);
    assert_contains (err.text, "field 'env.kkkk");
    assert_true (strlen (err.text) < HEARTH_ERROR_TEXT_MAX);
    cJSON_Delete (body);
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_full_body_accepted),
        cmocka_unit_test (test_missing_required),
        cmocka_unit_test (test_strings),
        cmocka_unit_test (test_labels),
        cmocka_unit_test (test_integers_and_numbers),
        cmocka_unit_test (test_bool_enum),
        cmocka_unit_test (test_ids_and_names),
        cmocka_unit_test (test_frames),
        cmocka_unit_test (test_containers),
        cmocka_unit_test (test_not_an_object),
        cmocka_unit_test (test_long_path),
    };
    return cmocka_run_group_tests_name ("schema", tests, NULL, NULL);
}
