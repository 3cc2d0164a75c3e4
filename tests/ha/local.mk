# High availability: standby masters elected through a real ZooKeeper
# (tests/lib/zk.sh starts Debian's server on a random port).
check_PROGRAMS += tests/ha/zkelect-probe
tests_ha_zkelect_probe_SOURCES = tests/ha/zkelect-probe.c
tests_ha_zkelect_probe_LDADD = $(ZK_ALL_LIBS) $(CORE_LIBS)
check_PROGRAMS += tests/ha/standby-peer
tests_ha_standby_peer_SOURCES = tests/ha/standby-peer.c
tests_ha_standby_peer_LDADD = $(CORE_LIBS)
HA_TESTS = tests/ha/test-zk-election.sh tests/ha/test-ha-masters.sh \
	tests/ha/test-ha-clients.sh tests/ha/test-ha-failover.sh
TESTS += $(HA_TESTS)
EXTRA_DIST += $(HA_TESTS)
TESTS += tests/ha/test-ha-zk.sh # test-ha-twenty.sh: at the top of Makefile.am
EXTRA_DIST += tests/ha/test-ha-zk.sh tests/ha/test-ha-twenty.sh
TESTS += tests/ha/test-ha-partition.sh
EXTRA_DIST += tests/ha/test-ha-partition.sh
# The leader's journal asked for as a standby would (test-ha-drivers.sh).
check_PROGRAMS += tests/ha/follow-probe
tests_ha_follow_probe_SOURCES = tests/ha/follow-probe.c
tests_ha_follow_probe_LDADD = $(CORE_LIBS)
TESTS += tests/ha/test-ha-drivers.sh
EXTRA_DIST += tests/ha/test-ha-drivers.sh
# Hands on the election's nodes: ACLs, the leader's own node, foreign URLs.
TESTS += tests/ha/test-ha-zkguard.sh
EXTRA_DIST += tests/ha/test-ha-zkguard.sh
# The cluster's directory made first by someone else (test-ha-zkowner.sh).
TESTS += tests/ha/test-ha-zkowner.sh
EXTRA_DIST += tests/ha/test-ha-zkowner.sh
# A master failover in the middle of a resume (issue 39).
TESTS += tests/ha/test-ha-resume.sh
EXTRA_DIST += tests/ha/test-ha-resume.sh
# The outputs a driver records after its leader died, before it knows,
# reach the new leader (told again once the driver registers there).
TESTS += tests/ha/test-ha-resume-records.sh
EXTRA_DIST += tests/ha/test-ha-resume-records.sh
