/*  test_spec.c - docs/protocol.md is in step with the command table.

    The spec documents every command under "### NAME", in the order of
    HEARTH_COMMANDS, and every body field as a table row

        | `field` | type | yes/no | limits | meaning |

    This test reads the spec from the source tree and checks, for every
    command and every object its fields contain, that each schema field has
    its row with the right type word, required column and limits, that no
    row documents a field the schema lacks, that the state tables list the
    codec's state names, and that the decoder's limits are quoted.

    It also ties each command's "Handled by:" line to the code: every
    socket dispatches by an s_handlers[] table of {HEARTH_CMD_NAME,
    handler} rows, and every row of every table is named on its command's
    line, as `DIR/FILE.c` `handler` pairs, with the handler defined in that
    file; a pair without a row names a request/reply client that waits
    for that command by name.

    And every command hearth-master dispatches has its row in the table of
    who may send it (master/authz.c), which names no other.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>

#include <cmocka.h>

#include "libcore/ids.h"
#include "libcore/proto.h"
#include "tests/unit/testutil.h"

#ifndef HEARTH_TEST_SRCDIR
#error "HEARTH_TEST_SRCDIR must name the top of the source tree"
#endif

#define SPEC HEARTH_TEST_SRCDIR "/docs/protocol.md"

/* The columns of one table row. */
typedef struct {
    char col[5][512]; /* field, type, required, limits, meaning */
} s_row_t;

static char *s_doc;  /* the whole spec */
static char *s_flat; /* the same with newlines as spaces, for prose */

static int
s_load (void **state)
{
    (void) state;
    FILE *f = fopen (SPEC, "r");
    if (!f) {
        print_error ("cannot read %s\n", SPEC);
        return -1;
    }
    s_doc = calloc (1, 1 << 20);
    size_t n = fread (s_doc, 1, (1 << 20) - 1, f);
    s_doc[n] = '\0';
    fclose (f);
    s_flat = strdup (s_doc);
    for (char *p = s_flat; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return 0;
}

static int
s_unload (void **state)
{
    (void) state;
    free (s_doc);
    free (s_flat);
    return 0;
}

/* The text under the heading "### title", up to the next heading; NULL
   when there is no such heading.  The caller frees. */
static char *
s_section (const char *title)
{
    char heading[128];
    snprintf (heading, sizeof heading, "\n### %s\n", title);
    const char *start = strstr (s_doc, heading);
    if (!start)
        return NULL;
    start += strlen (heading);
    const char *end = strstr (start, "\n#");
    size_t len = end ? (size_t) (end - start) : strlen (start);
    return strndup (start, len);
}

static void
s_trim_into (char *dst, const char *src, size_t len)
{
    while (len > 0 && *src == ' ')
        src++, len--;
    while (len > 0 && src[len - 1] == ' ')
        len--;
    if (len > 511)
        len = 511;
    memcpy (dst, src, len);
    dst[len] = '\0';
}

/* Find the row of field name in section.  Returns 0 or -1. */
static int
s_find_row (const char *section, const char *name, s_row_t *row)
{
    char start[128];
    snprintf (start, sizeof start, "\n| `%s` |", name);
    const char *line = strstr (section, start);
    if (!line)
        return -1;
    line += 2; /* past "\n|" */
    for (int c = 0; c < 5; c++) {
        const char *bar = strchr (line, '|');
        const char *nl = strchr (line, '\n');
        if (!bar || (nl && nl < bar))
            return -1;
        s_trim_into (row->col[c], line, (size_t) (bar - line));
        line = bar + 1;
    }
    return 0;
}

/* Rows of field tables in section ("| `"). */
static int
s_count_rows (const char *section)
{
    int n = 0;
    for (const char *p = section; (p = strstr (p, "\n| `")); p++)
        n++;
    return n;
}

static const char *
s_type_word (hearth_ftype_t t)
{
    static const char *const words[] = {
        [HEARTH_F_STR] = "string",    [HEARTH_F_LABEL] = "label",
        [HEARTH_F_INT] = "integer",   [HEARTH_F_NUM] = "number",
        [HEARTH_F_BOOL] = "boolean",  [HEARTH_F_ID] = "id",
        [HEARTH_F_NAME] = "name",     [HEARTH_F_ENUM] = "enum",
        [HEARTH_F_FRAME] = "frame",   [HEARTH_F_ARRAY] = "array",
        [HEARTH_F_OBJECT] = "object", [HEARTH_F_MAP] = "map",
        [HEARTH_F_ANY] = "any",
    };
    return words[t];
}

/* The state machine whose names values are, or NULL. */
static const char *
s_machine (const char *const *values)
{
    if (values == hearth_master_states)
        return "master state";
    if (values == hearth_worker_states)
        return "worker state";
    if (values == hearth_app_states)
        return "application state";
    if (values == hearth_executor_states)
        return "executor state";
    if (values == hearth_driver_states)
        return "driver state";
    if (values == hearth_task_states)
        return "task state";
    return NULL;
}

static void s_check_fields (const char *where, const hearth_field_t *fields);

/* The type column of a container: "array of T" / "map of T". */
static void
s_check_container (const char *where, const hearth_field_t *f,
                   const s_row_t *row)
{
    const hearth_field_t *e = &f->sub[0];
    char want[128];
    const char *elem =
        e->type == HEARTH_F_OBJECT && e->sub ? NULL : s_type_word (e->type);
    if (elem) {
        snprintf (want, sizeof want, "%s of %s", s_type_word (f->type), elem);
        if (strcmp (row->col[1], want) != 0)
            fail_msg ("%s.%s: type '%s', expected '%s'", where, f->name,
                      row->col[1], want);
        return;
    }
    /* an array of a documented object: "array of NAME", ### NAME */
    snprintf (want, sizeof want, "%s of ", s_type_word (f->type));
    if (strncmp (row->col[1], want, strlen (want)) != 0)
        fail_msg ("%s.%s: type '%s', expected '%sOBJECT'", where, f->name,
                  row->col[1], want);
    s_check_fields (row->col[1] + strlen (want), e->sub);
}

static void
s_check_limits (const char *where, const hearth_field_t *f, const s_row_t *row)
{
    char want[128];
    if (f->type == HEARTH_F_ENUM) {
        const char *machine = s_machine (f->values);
        if (machine) {
            if (strcmp (row->col[3], machine) != 0)
                fail_msg ("%s.%s: limits '%s', expected '%s'", where, f->name,
                          row->col[3], machine);
            return;
        }
        for (int i = 0; f->values[i]; i++) {
            snprintf (want, sizeof want, "`%s`", f->values[i]);
            if (!strstr (row->col[3], want))
                fail_msg ("%s.%s: limits '%s' lack %s", where, f->name,
                          row->col[3], want);
        }
        return;
    }
    bool ranged = f->type == HEARTH_F_STR || f->type == HEARTH_F_LABEL
                  || f->type == HEARTH_F_INT || f->type == HEARTH_F_NUM
                  || f->type == HEARTH_F_ARRAY || f->type == HEARTH_F_MAP;
    if (ranged) {
        snprintf (want, sizeof want, "%.0f..%.0f", f->min, f->max);
        if (strcmp (row->col[3], want) != 0)
            fail_msg ("%s.%s: limits '%s', expected '%s'", where, f->name,
                      row->col[3], want);
    }
    else if (row->col[3][0])
        fail_msg ("%s.%s: limits '%s' for a field without limits", where,
                  f->name, row->col[3]);
}

static void
s_check_field (const char *where, const char *section, const hearth_field_t *f)
{
    s_row_t row;
    if (s_find_row (section, f->name, &row) < 0)
        fail_msg ("%s: field '%s' is not documented", where, f->name);
    const char *word = s_type_word (f->type);
    if (strncmp (row.col[1], word, strlen (word)) != 0)
        fail_msg ("%s.%s: type '%s', expected '%s…'", where, f->name,
                  row.col[1], word);
    if (f->type == HEARTH_F_ID) {
        static const char *const kinds[] = {"id (app)", "id (driver)",
                                            "id (worker)"};
        if (strcmp (row.col[1], kinds[f->id_kind]) != 0)
            fail_msg ("%s.%s: type '%s', expected '%s'", where, f->name,
                      row.col[1], kinds[f->id_kind]);
    }
    if (strcmp (row.col[2], f->required ? "yes" : "no") != 0)
        fail_msg ("%s.%s: required '%s', expected '%s'", where, f->name,
                  row.col[2], f->required ? "yes" : "no");
    s_check_limits (where, f, &row);
    if ((f->type == HEARTH_F_ARRAY || f->type == HEARTH_F_MAP) && f->sub)
        s_check_container (where, f, &row);
    /* a member that is an object of known fields: "object NAME", its
       fields under ### NAME */
    if (f->type == HEARTH_F_OBJECT && f->sub) {
        if (strncmp (row.col[1], "object ", 7) != 0 || !row.col[1][7])
            fail_msg ("%s.%s: type '%s', expected 'object NAME'", where,
                      f->name, row.col[1]);
        s_check_fields (row.col[1] + 7, f->sub);
    }
}

/* Check the table under "### where" against fields. */
static void
s_check_fields (const char *where, const hearth_field_t *fields)
{
    char *section = s_section (where);
    if (!section)
        fail_msg ("no section '### %s' in %s", where, SPEC);
    char *text = NULL;
    if (asprintf (&text, "\n%s", section) < 0)
        fail ();
    int count = 0;
    for (const hearth_field_t *f = fields; f && f->name; f++, count++)
        s_check_field (where, text, f);
    if (s_count_rows (text) != count)
        fail_msg ("%s: %d documented fields, the schema has %d", where,
                  s_count_rows (text), count);
    free (text);
    free (section);
}

static void
test_every_command_documented (void **state)
{
    (void) state;
    const char *last = s_doc;
    for (int c = 0; c < HEARTH_CMD_COUNT; c++) {
        const char *name = hearth_cmd_name ((hearth_cmd_t) c);
        s_check_fields (name, hearth_cmd_schema ((hearth_cmd_t) c));
        char heading[96];
        snprintf (heading, sizeof heading, "\n### %s\n", name);
        const char *at = strstr (s_doc, heading);
        if (at < last)
            fail_msg ("%s is out of the order of HEARTH_COMMANDS", name);
        last = at;
    }
}

/* Every upper-case "### " heading is a command of the table. */
static void
test_no_extra_commands (void **state)
{
    (void) state;
    for (const char *p = s_doc; (p = strstr (p, "\n### ")); p++) {
        const char *name = p + 5;
        size_t len = strcspn (name, "\n");
        if (name[0] < 'A' || name[0] > 'Z')
            continue;
        if (hearth_cmd_lookup (name, len) < 0)
            fail_msg ("the spec documents '%.*s', which is not a command",
                      (int) len, name);
    }
}

static void
test_states_documented (void **state)
{
    (void) state;
    static const struct {
        const char *machine;
        const char *const *names;
    } machines[] = {
        {"master state", hearth_master_states},
        {"worker state", hearth_worker_states},
        {"application state", hearth_app_states},
        {"executor state", hearth_executor_states},
        {"driver state", hearth_driver_states},
        {"task state", hearth_task_states},
    };
    for (size_t m = 0; m < sizeof machines / sizeof machines[0]; m++) {
        char start[64];
        snprintf (start, sizeof start, "\n| %s |", machines[m].machine);
        const char *row = strstr (s_doc, start);
        if (!row)
            fail_msg ("no row for %s in the states table", machines[m].machine);
        const char *states = strchr (row + strlen (start), '|');
        assert_non_null (states);
        int n = 0;
        for (int i = 0; machines[m].names[i]; i++, n++) {
            char want[64];
            snprintf (want, sizeof want, "`%s`", machines[m].names[i]);
            char *cell = strndup (row, (size_t) (states - row));
            if (!strstr (cell, want))
                fail_msg ("%s: %s is missing", machines[m].machine, want);
            free (cell);
        }
        assert_true (n > 0);
    }
}

static void
test_limits_documented (void **state)
{
    (void) state;
    char want[64];
    assert_contains (s_doc, "`" HEARTH_PROTO_TAG "`");
    snprintf (want, sizeof want, "at most %d bytes", HEARTH_MAX_BODY_BYTES);
    assert_contains (s_flat, want);
    snprintf (want, sizeof want, "at most %d levels", HEARTH_MAX_DEPTH);
    assert_contains (s_flat, want);
    snprintf (want, sizeof want, "at most %d per message", HEARTH_MAX_FRAMES);
    assert_contains (s_flat, want);
    snprintf (want, sizeof want, "at most %d characters", HEARTH_ID_MAX);
    assert_contains (s_flat, want);
    static const char *const codes[] = {
        "bad_protocol",    "bad_version", "truncated",
        "unknown_command", "too_large",   "too_deep",
        "bad_json",        "bad_field",   "bad_frame",
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        snprintf (want, sizeof want, "\n| `%s` |", codes[i]);
        assert_contains (s_doc, want);
    }
}

/* --- "Handled by:" against the handler tables ------------------------- */

/* The programs whose sockets dispatch by table, by directory. */
static const char *const s_program_dirs[] = {"master",    "worker", "executor",
                                             "libhearth", "submit", "tail"};

/* One {HEARTH_CMD_NAME, handler} row of an s_handlers[] table. */
typedef struct {
    char dir[16];  /* the program's directory */
    char file[64]; /* the file holding the table */
    char cmd[64];  /* the command */
    char fn[64];   /* its handler */
    bool local;    /* the table's file defines it (a static handler) */
    bool listed;   /* named on the command's "Handled by:" line */
} s_hrow_t;

static s_hrow_t s_hrows[512];
static size_t s_nhrows;

static bool s_defines (const char *text, const char *fn);

/* The contents of a source file (relative to the top), or NULL. */
static char *
s_read_source (const char *relpath)
{
    char path[512];
    snprintf (path, sizeof path, "%s/%s", HEARTH_TEST_SRCDIR, relpath);
    FILE *f = fopen (path, "r");
    if (!f)
        return NULL;
    char *text = calloc (1, 1 << 20);
    size_t n = text ? fread (text, 1, (1 << 20) - 1, f) : 0;
    fclose (f);
    if (text)
        text[n] = '\0';
    return text;
}

/* The length of the run of chars of set at p. */
static size_t
s_run (const char *p, const char *set)
{
    return strspn (p, set);
}

/* Note the table rows of one line, when it is one:
   "    {HEARTH_CMD_NAME, handler},". */
static void
s_scan_line (const char *dir, const char *file, const char *line)
{
    static const char upper[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ_";
    static const char lower[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    line += s_run (line, " ");
    if (strncmp (line, "{HEARTH_CMD_", 12) != 0)
        return;
    const char *cmd = line + 12;
    size_t clen = s_run (cmd, upper);
    if (clen == 0 || strncmp (cmd + clen, ", ", 2) != 0)
        return;
    const char *fn = cmd + clen + 2;
    size_t flen = s_run (fn, lower);
    if (flen == 0 || strncmp (fn + flen, "},", 2) != 0)
        return;
    assert_true (s_nhrows < sizeof s_hrows / sizeof s_hrows[0]);
    s_hrow_t *r = &s_hrows[s_nhrows++];
    snprintf (r->dir, sizeof r->dir, "%s", dir);
    snprintf (r->file, sizeof r->file, "%s/%s", dir, file);
    snprintf (r->cmd, sizeof r->cmd, "%.*s", (int) clen, cmd);
    snprintf (r->fn, sizeof r->fn, "%.*s", (int) flen, fn);
}

/* Every table row of the C files of the programs' directories. */
static void
s_scan_tables (void)
{
    s_nhrows = 0;
    for (size_t d = 0; d < sizeof s_program_dirs / sizeof *s_program_dirs;
         d++) {
        char path[512];
        snprintf (path, sizeof path, "%s/%s", HEARTH_TEST_SRCDIR,
                  s_program_dirs[d]);
        DIR *dh = opendir (path);
        assert_non_null (dh);
        struct dirent *de;
        while ((de = readdir (dh))) {
            size_t len = strlen (de->d_name);
            if (len < 3 || strcmp (de->d_name + len - 2, ".c") != 0)
                continue;
            char rel[300];
            snprintf (rel, sizeof rel, "%s/%s", s_program_dirs[d], de->d_name);
            char *text = s_read_source (rel);
            assert_non_null (text);
            size_t first = s_nhrows;
            for (char *line = text; line;) {
                s_scan_line (s_program_dirs[d], de->d_name, line);
                line = strchr (line, '\n');
                line = line ? line + 1 : NULL;
            }
            for (size_t i = first; i < s_nhrows; i++)
                s_hrows[i].local = s_defines (text, s_hrows[i].fn);
            free (text);
        }
        closedir (dh);
    }
}

/* text defines fn: a line starts with "fn (". */
static bool
s_defines (const char *text, const char *fn)
{
    char want[128];
    snprintf (want, sizeof want, "\n%.100s (", fn);
    return strstr (text, want) != NULL;
}

/* Check one `file` `fn` pair of cmd's line; 0 or the errors found. */
static int
s_check_pair (const char *cmd, const char *file, const char *fn)
{
    char *text = s_read_source (file);
    if (!text) {
        print_error ("%s: Handled by names %s, which does not exist\n", cmd,
                     file);
        return 1;
    }
    int errors = 0;
    if (!s_defines (text, fn)) {
        print_error ("%s: Handled by names %s in %s, which does not define "
                     "it\n",
                     cmd, fn, file);
        errors++;
    }
    bool row = false;
    size_t dlen = strcspn (file, "/");
    for (size_t i = 0; i < s_nhrows; i++)
        if (strcmp (s_hrows[i].cmd, cmd) == 0 && strcmp (s_hrows[i].fn, fn) == 0
            && strncmp (s_hrows[i].dir, file, dlen) == 0
            && s_hrows[i].dir[dlen] == '\0'
            && (!s_hrows[i].local || strcmp (s_hrows[i].file, file) == 0)) {
            s_hrows[i].listed = true;
            row = true;
        }
    char want[128];
    snprintf (want, sizeof want, "HEARTH_CMD_%.100s", cmd);
    if (!row && !strstr (text, want)) {
        print_error ("%s: Handled by names %s in %s, but no table row "
                     "dispatches %s to it and the file never names %s\n",
                     cmd, fn, file, cmd, want);
        errors++;
    }
    free (text);
    return errors;
}

/* Check the "Handled by:" paragraph of one command; 0 or the errors. */
static int
s_check_handled_by (const char *cmd)
{
    char *section = s_section (cmd);
    const char *p = section ? strstr (section, "Handled by:") : NULL;
    if (!p) {
        print_error ("%s: no \"Handled by:\" line\n", cmd);
        free (section);
        return 1;
    }
    const char *end = strstr (p, "\n\n");
    if (!end)
        end = p + strlen (p);
    int errors = 0, pairs = 0;
    char file[128], fn[96];
    for (p += 11; p < end; pairs++) {
        const char *a = strchr (p, '`');
        if (!a || a >= end)
            break;
        const char *b = strchr (a + 1, '`');
        const char *c = b ? strchr (b + 1, '`') : NULL;
        const char *d = c ? strchr (c + 1, '`') : NULL;
        if (!d || d >= end || strspn (b + 1, " \n") != (size_t) (c - b - 1)) {
            print_error ("%s: Handled by wants `FILE` `FUNCTION` pairs\n", cmd);
            errors++;
            break;
        }
        snprintf (file, sizeof file, "%.*s", (int) (b - a - 1), a + 1);
        snprintf (fn, sizeof fn, "%.*s", (int) (d - c - 1), c + 1);
        errors += s_check_pair (cmd, file, fn);
        p = d + 1;
    }
    if (pairs == 0) {
        print_error ("%s: Handled by names no handler\n", cmd);
        errors++;
    }
    free (section);
    return errors;
}

/* Every command's "Handled by:" pairs exist, and name every table row. */
static void
test_handlers_documented (void **state)
{
    (void) state;
    s_scan_tables ();
    assert_true (s_nhrows > 0);
    int errors = 0;
    for (size_t i = 0; i < s_nhrows; i++)
        if (hearth_cmd_lookup (s_hrows[i].cmd, strlen (s_hrows[i].cmd)) < 0) {
            print_error ("%s: a table row dispatches %s, not a command\n",
                         s_hrows[i].file, s_hrows[i].cmd);
            errors++;
        }
    for (int c = 0; c < HEARTH_CMD_COUNT; c++)
        errors += s_check_handled_by (hearth_cmd_name ((hearth_cmd_t) c));
    for (size_t i = 0; i < s_nhrows; i++)
        if (!s_hrows[i].listed) {
            print_error ("%s: the table dispatches %s to %s, which %s's "
                         "\"Handled by:\" does not name\n",
                         s_hrows[i].file, s_hrows[i].cmd, s_hrows[i].fn,
                         s_hrows[i].cmd);
            errors++;
        }
    assert_int_equal (errors, 0);
}

/* Count the rows "{HEARTH_CMD_NAME, " of text, and check that each is
   a command handlers.c dispatches. */
static int
s_rules_dispatched (const char *text, int *rules)
{
    int errors = 0;
    for (const char *p = strstr (text, "{HEARTH_CMD_"); p;
         p = strstr (p + 1, "{HEARTH_CMD_")) {
        const char *cmd = p + 12;
        size_t len = s_run (cmd, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        bool found = false;
        for (size_t i = 0; i < s_nhrows; i++)
            found |= strcmp (s_hrows[i].file, "master/handlers.c") == 0
                     && strlen (s_hrows[i].cmd) == len
                     && strncmp (s_hrows[i].cmd, cmd, len) == 0;
        if (!found) {
            print_error ("master/authz.c: a row for %.*s, which handlers.c "
                         "does not dispatch\n",
                         (int) len, cmd);
            errors++;
        }
        (*rules)++;
    }
    return errors;
}

/* Every command the master dispatches has its row in authz.c's table of
   who may send it (a command without one would be refused to everyone),
   and the table has no row for a command the master does not take. */
static void
test_master_commands_authorized (void **state)
{
    (void) state;
    s_scan_tables ();
    char *text = s_read_source ("master/authz.c");
    assert_non_null (text);
    int errors = 0, rules = 0, handled = 0;
    for (size_t i = 0; i < s_nhrows; i++) {
        if (strcmp (s_hrows[i].file, "master/handlers.c") != 0)
            continue;
        handled++;
        char row[100];
        snprintf (row, sizeof row, "{HEARTH_CMD_%s,", s_hrows[i].cmd);
        if (!strstr (text, row)) {
            print_error ("master/handlers.c dispatches %s, which has no row "
                         "in master/authz.c's table of who may send it\n",
                         s_hrows[i].cmd);
            errors++;
        }
    }
    errors += s_rules_dispatched (text, &rules);
    free (text);
    assert_true (handled > 20);
    assert_int_equal (rules, handled);
    assert_int_equal (errors, 0);
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_every_command_documented),
        cmocka_unit_test (test_no_extra_commands),
        cmocka_unit_test (test_states_documented),
        cmocka_unit_test (test_limits_documented),
        cmocka_unit_test (test_handlers_documented),
        cmocka_unit_test (test_master_commands_authorized),
    };
    return cmocka_run_group_tests_name ("spec", tests, s_load, s_unload);
}
