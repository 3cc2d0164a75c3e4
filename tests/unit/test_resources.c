/*  test_resources.c - unit tests of custom resources' names, addresses and
    amounts in their three spellings (libcore/resources.c).
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/resources.h"
#include "tests/unit/testutil.h"

static void
test_names_and_addresses (void **state)
{
    (void) state;
    assert_true (hearth_resource_name_valid ("gpu"));
    assert_true (hearth_resource_name_valid ("nvidia.com-gpu_2"));
    assert_false (hearth_resource_name_valid (""));
    assert_false (hearth_resource_name_valid ("0gpu"));
    assert_false (hearth_resource_name_valid ("g pu"));
    assert_false (hearth_resource_name_valid ("gpu=1"));
    assert_false (hearth_resource_name_valid (
        "a234567890123456789012345678901234")); /* 34 */
    assert_true (hearth_resource_addr_valid ("0"));
    assert_true (hearth_resource_addr_valid ("0000:3b:00.0"));
    assert_false (hearth_resource_addr_valid (""));
    assert_false (hearth_resource_addr_valid ("a,b"));
    assert_false (hearth_resource_addr_valid ("a b"));
    assert_false (hearth_resource_addr_valid ("a;b"));
}

static void
test_spec (void **state)
{
    (void) state;
    hearth_resources_t r = {0};
    hearth_error_t err;
    assert_int_equal (hearth_resources_add_spec (&r, "gpu=0,1,2,3", &err), 0);
    assert_int_equal (hearth_resources_add_spec (&r, "fpga=x", &err), 0);
    assert_int_equal (r.n, 2);
    const hearth_resource_t *gpu = hearth_resources_find (&r, "gpu");
    assert_non_null (gpu);
    assert_int_equal (gpu->naddrs, 4);
    assert_string_equal (gpu->addrs[3], "3");
    char *joined = hearth_resource_join (gpu);
    assert_string_equal (joined, "0,1,2,3");
    free (joined);
    char *spec = hearth_resource_spec (hearth_resources_find (&r, "fpga"));
    assert_string_equal (spec, "fpga=x");
    free (spec);

    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"gpu", "expected NAME=ADDRESS"},
        {"nic=", "no address"},
        {"gpu=0", "given twice"},
        {"nic=a,,b", "address ''"},
        {"nic=a,", "address ''"},
        {"nic=a,a", "address a is given twice"},
        {"=a", "resource name ''"},
        {"9x=a", "resource name '9x'"},
        {"nic=a b", "address 'a b'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (hearth_resources_add_spec (&r, bad[i].spec, &err) == 0)
            fail_msg ("'%s' accepted", bad[i].spec);
        assert_contains (err.text, bad[i].needle);
        assert_int_equal (r.n, 2); /* unchanged */
    }
    hearth_resources_clear (&r);
    assert_int_equal (r.n, 0);
}

static void
test_discovered (void **state)
{
    (void) state;
    hearth_resources_t r = {0};
    hearth_error_t err;
    assert_int_equal (hearth_resources_add_discovered (
                          &r, "gpu",
                          "  {\"name\": \"gpu\", \"addresses\": [\"0\", "
                          "\"1\"]}\n",
                          &err),
                      0);
    assert_int_equal (hearth_resources_find (&r, "gpu")->naddrs, 2);
    assert_int_equal (
        hearth_resources_add_discovered (
            &r, "fpga", "{\"name\": \"gpu\", \"addresses\": []}", &err),
        -1);
    assert_contains (err.text, "names resource 'gpu'");
    assert_int_equal (
        hearth_resources_add_discovered (&r, "fpga", "not json", &err), -1);
    assert_contains (err.text, "printed 'not json'");
    assert_int_equal (
        hearth_resources_add_discovered (
            &r, "fpga", "{\"name\": \"fpga\", \"addresses\": [1]}", &err),
        -1);
    assert_contains (err.text, "not a string");
    assert_int_equal (
        hearth_resources_add_discovered (
            &r, "fpga", "{\"name\": \"fpga\", \"addresses\": []}", &err),
        -1);
    assert_contains (err.text, "no address");
    assert_int_equal (r.n, 1);
    hearth_resources_clear (&r);
}

static void
test_json (void **state)
{
    (void) state;
    hearth_resources_t r = {0}, back = {0};
    hearth_error_t err;
    assert_int_equal (hearth_resources_add_spec (&r, "gpu=0,1", &err), 0);
    assert_int_equal (hearth_resources_add_spec (&r, "nic=eth0", &err), 0);
    cJSON *j = hearth_resources_to_json (&r);
    char *text = cJSON_PrintUnformatted (j);
    assert_string_equal (text, "{\"gpu\":[\"0\",\"1\"],\"nic\":[\"eth0\"]}");
    free (text);
    assert_int_equal (hearth_resources_from_json (&back, j, &err), 0);
    assert_int_equal (back.n, 2);
    assert_string_equal (hearth_resources_find (&back, "nic")->addrs[0],
                         "eth0");
    cJSON_Delete (j);

    static const char *const bad[] = {
        "{\"gpu\":\"0\"}",    "{\"gpu\":[\"0\",\"0\"]}", "{\"gpu\":[]}",
        "{\"g pu\":[\"0\"]}", "{\"gpu\":[0]}",           "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *b = cJSON_Parse (bad[i]);
        assert_int_equal (hearth_resources_from_json (&back, b, &err), -1);
        assert_int_equal (back.n, 2); /* unchanged */
        cJSON_Delete (b);
    }
    assert_int_equal (hearth_resources_from_json (&back, NULL, &err), 0);
    hearth_resources_clear (&back);
    hearth_resources_clear (&r);
}

static void
test_env_name (void **state)
{
    (void) state;
    char buf[HEARTH_RESOURCE_ENV_MAX];
    hearth_resource_env_name ("gpu", buf, sizeof buf);
    assert_string_equal (buf, "HEARTH_RESOURCE_GPU");
    hearth_resource_env_name ("nvidia.com-gpu_2", buf, sizeof buf);
    assert_string_equal (buf, "HEARTH_RESOURCE_NVIDIA_COM_GPU_2");
}

static void
test_amounts (void **state)
{
    (void) state;
    hearth_resource_amounts_t a = {0}, b = {0};
    hearth_error_t err;
    assert_int_equal (hearth_resource_amounts_add_spec (&a, "gpu=2", &err), 0);
    assert_int_equal (hearth_resource_amounts_add_spec (&a, "fpga=1", &err), 0);
    assert_int_equal (hearth_resource_amount (&a, "gpu"), 2);
    assert_int_equal (hearth_resource_amount (&a, "nic"), 0);
    static const char *const bad[] = {"gpu",      "gpu=",   "gpu=0", "gpu=x",
                                      "nic=1025", "nic=1x", "gpu=1", "1=1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (hearth_resource_amounts_add_spec (&a, bad[i], &err) == 0)
            fail_msg ("'%s' accepted", bad[i]);
        assert_int_equal (a.n, 2);
    }
    cJSON *j = hearth_resource_amounts_to_json (&a);
    char *text = cJSON_PrintUnformatted (j);
    assert_string_equal (text, "{\"gpu\":2,\"fpga\":1}");
    free (text);
    assert_int_equal (hearth_resource_amounts_from_json (&b, j, &err), 0);
    assert_int_equal (hearth_resource_amount (&b, "fpga"), 1);
    cJSON_Delete (j);
    cJSON *bad_json = cJSON_Parse ("{\"gpu\":1.5}");
    assert_int_equal (hearth_resource_amounts_from_json (&b, bad_json, &err),
                      -1);
    assert_contains (err.text, "whole amount");
    assert_int_equal (b.n, 2);
    cJSON_Delete (bad_json);
    hearth_resource_amounts_t c = {0};
    assert_int_equal (hearth_resource_amounts_copy (&c, &b), 0);
    assert_int_equal (hearth_resource_amount (&c, "gpu"), 2);
    hearth_resource_amounts_clear (&c);
    hearth_resource_amounts_clear (&b);
    hearth_resource_amounts_clear (&a);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_names_and_addresses),
        cmocka_unit_test (test_spec),
        cmocka_unit_test (test_discovered),
        cmocka_unit_test (test_json),
        cmocka_unit_test (test_env_name),
        cmocka_unit_test (test_amounts),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
