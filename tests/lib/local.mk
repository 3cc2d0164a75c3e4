# The shell helpers every integration, driver and security test sources:
# cluster.sh (daemons, ports, checks, the cleanup trap), driver.sh (jobs,
# hearth-submit) and security.sh (keys).
EXTRA_DIST += tests/lib/cluster.sh tests/lib/driver.sh tests/lib/security.sh
