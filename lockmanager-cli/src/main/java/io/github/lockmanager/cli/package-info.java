/**
 * The {@code lockmanager} command: lists and administers the locks of a store without a manager of its own. Only
 * {@link io.github.lockmanager.cli.LockManagerCli} is public, for embedding.
 */
package io.github.lockmanager.cli;
