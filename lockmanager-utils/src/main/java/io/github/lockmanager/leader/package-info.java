/**
 * Leadership of a name among members on any nodes, on the API alone: {@code LeaderElection} (a member, its terms
 * numbered by fencing tokens and revoked before another member can lead), {@code Term} (a guard for a leader's work)
 * and {@code LeaderElection.leaderOf} (who leads, without joining).
 */
package io.github.lockmanager.leader;
