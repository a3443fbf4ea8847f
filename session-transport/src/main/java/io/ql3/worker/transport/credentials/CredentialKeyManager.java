package io.ql3.worker.transport.credentials;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * An immutable key manager over one parsed key and chain (one credential generation). It is never
 * mutated: a rotation builds a new one with a new SSLContext, so a handshake can never pair a new
 * chain with an old key. Avoids Netty's PKCS12 round trip of {@code keyManager(key, chain)}.
 */
final class CredentialKeyManager extends X509ExtendedKeyManager {
  static final String ALIAS = "ql3w-client";
  private final PrivateKey key;
  private final X509Certificate[] chain;

  CredentialKeyManager(PrivateKey key, X509Certificate[] chain) {
    this.key = key;
    this.chain = chain.clone();
  }

  private String aliasFor(String[] keyTypes) {
    if (keyTypes == null) {
      return null;
    }
    String algorithm = key.getAlgorithm();
    for (String type : keyTypes) {
      if (type.equals(algorithm) || ("RSA".equals(algorithm) && "RSASSA-PSS".equals(type))) {
        return ALIAS;
      }
    }
    return null;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    // Issuers are ignored on purpose: the one configured chain is the only one we have.
    return aliasFor(keyTypes);
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    return aliasFor(keyTypes);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return aliasFor(new String[] {keyType}) == null ? null : new String[] {ALIAS};
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return ALIAS.equals(alias) ? chain.clone() : null;
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return ALIAS.equals(alias) ? key : null;
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return null;
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return null;
  }
}
