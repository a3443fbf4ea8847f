package io.ql3.worker.contract;

/** An enum whose constants have a lowercase wire spelling. */
public interface WireEnum {
  String wire();
}
