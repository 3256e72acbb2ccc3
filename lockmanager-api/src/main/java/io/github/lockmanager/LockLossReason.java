package io.github.lockmanager;

/** Why a held lock was lost. */
public enum LockLossReason {
    /** The store answered that the record no longer belongs to this acquisition: its lease ran out, or another owner has it. */
    NOT_OWNED,
    /** No renewal could be confirmed, and the lease would have run out before the next attempt. */
    RENEWAL_UNCONFIRMED
}
