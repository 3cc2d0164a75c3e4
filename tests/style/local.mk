# The code's formatting, checked against .clang-format, and the call graph
# between the files of each program (no circle but the intended ones).
TESTS += tests/style/test-format.sh tests/style/test-module-graph.sh
EXTRA_DIST += tests/style/test-format.sh tests/style/test-module-graph.sh
