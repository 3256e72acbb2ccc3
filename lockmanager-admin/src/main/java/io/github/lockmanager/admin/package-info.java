/**
 * The admin page and what it stands on: {@link io.github.lockmanager.admin.LockAdmin} (the locks of a store, with
 * abort, force-release and clean-up), the page as a servlet for web applications and as a server of its own for
 * {@code lockmanager serve}, and the JSON it serves to scripts.
 */
package io.github.lockmanager.admin;
