/**
 * Not part of lockmanager's API: helpers its own modules share (argument checks written once). Public only because
 * Java has no narrower visibility across modules without JPMS; anything here may change or go in any release, so
 * applications and stores of their own should not use it.
 */
package io.github.lockmanager.internal;
