# The code's formatting (checked against .clang-format), the call graph
# between the files of each program (no circle but the intended ones),
# the size of each file (a warning past 800 lines, a failure past
# 1,000), and that only the master's registry writes its records.
STYLE_TESTS = tests/style/test-format.sh tests/style/test-module-graph.sh \
	tests/style/test-file-size.sh tests/style/test-registry-writes.sh
TESTS += $(STYLE_TESTS)
EXTRA_DIST += $(STYLE_TESTS)
