package io.github.lockmanager.admin;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Tokens that only a page this server rendered can send back: an HMAC of the signed-in subject (a session or a user)
 * under a key drawn when the page starts. A forged request from another site cannot read the page, so it cannot know
 * the token; nothing is stored per subject.
 */
final class CsrfTokens {
    private final SecretKeySpec key;

    CsrfTokens() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        this.key = new SecretKeySpec(secret, "HmacSHA256");
    }

    String tokenFor(String subject) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(subject.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    boolean isValid(String subject, String token) {
        return token != null && MessageDigest.isEqual(tokenFor(subject).getBytes(StandardCharsets.US_ASCII),
                token.getBytes(StandardCharsets.US_ASCII));
    }
}
