import { createMachine } from 'xstate';

const toolCallMachine = createMachine({
  "id": "toolCall",
  "entry": "openCall",
  "invoke": {
    "id": "abortWatch",
    "src": "watchAbort",
    "onError": {
      "actions": []
    }
  },
  "on": {
    "ABORT": {
      "guard": "isLive",
      "actions": [
        "markAborted",
        "startCancelGrace",
        "abortCall"
      ]
    },
    "CANCEL_GRACE_OVER": {
      "actions": "markGraceOver"
    }
  },
  "initial": "preparing",
  "states": {
    "preparing": {
      "initial": "detaching",
      "states": {
        "detaching": {
          "invoke": {
            "id": "detach",
            "src": "detach",
            "onDone": [
              {
                "guard": {
                  "type": "detachedAs",
                  "params": {
                    "outcome": "invalid-args"
                  }
                },
                "target": "#toolCall.sealing",
                "actions": [
                  "recordDetach",
                  "settleInvalidArgs"
                ]
              },
              {
                "guard": {
                  "type": "detachedAs",
                  "params": {
                    "outcome": "pre-aborted"
                  }
                },
                "target": "#toolCall.sealing",
                "actions": [
                  "recordDetach",
                  "settleAbortedBeforeDispatch"
                ]
              },
              {
                "target": "checking",
                "actions": "recordDetach"
              }
            ],
            "onError": {
              "target": "#toolCall.sealing",
              "actions": "settlePipelineError"
            }
          }
        },
        "checking": {
          "always": [
            {
              "guard": "isAborted",
              "target": "#toolCall.sealing"
            },
            {
              "guard": {
                "type": "seamIsEmpty",
                "params": {
                  "seam": "tools/prepare"
                }
              },
              "target": "#toolCall.sealing"
            },
            {
              "guard": "isNotPreparable",
              "target": "#toolCall.sealing"
            },
            {
              "target": "folding"
            }
          ]
        },
        "folding": {
          "on": {
            "ABORT": {
              "guard": "isLive",
              "target": "#toolCall.sealing",
              "actions": [
                "markAborted",
                "startCancelGrace",
                "abortCall",
                "settleAbortedBeforeDispatch"
              ]
            }
          },
          "invoke": {
            "id": "prepare",
            "src": "prepare",
            "onDone": [
              {
                "guard": {
                  "type": "preparedAs",
                  "params": {
                    "outcome": "refused"
                  }
                },
                "target": "#toolCall.sealing",
                "actions": "settlePrepareRefusal"
              },
              {
                "target": "#toolCall.sealing"
              }
            ],
            "onError": {
              "target": "#toolCall.sealing",
              "actions": "settlePipelineError"
            }
          }
        }
      }
    },
    "sealing": {
      "entry": [
        "sealCall",
        "reportPreparedInput"
      ],
      "always": [
        {
          "guard": "hasResult",
          "target": "settled"
        },
        {
          "guard": "isAborted",
          "target": "settled",
          "actions": "settleAbortedBeforeDispatch"
        },
        {
          "target": "preExecute"
        }
      ]
    },
    "preExecute": {
      "on": {
        "ABORT": {
          "guard": "isLive",
          "target": "settled",
          "actions": [
            "markAborted",
            "startCancelGrace",
            "abortCall",
            "settleAbortedBeforeDispatch"
          ]
        }
      },
      "initial": "checking",
      "states": {
        "checking": {
          "always": [
            {
              "guard": {
                "type": "seamIsEmpty",
                "params": {
                  "seam": "tools/pre-execute"
                }
              },
              "target": "#toolCall.guards",
              "actions": {
                "type": "emitDefaultDecided",
                "params": {
                  "seam": "tools/pre-execute"
                }
              }
            },
            {
              "target": "deciding"
            }
          ]
        },
        "deciding": {
          "invoke": {
            "id": "preExecute",
            "src": "preExecute",
            "onDone": [
              {
                "guard": {
                  "type": "preDecisionIs",
                  "params": {
                    "kind": "allow"
                  }
                },
                "target": "#toolCall.guards",
                "actions": "recordPreDecision"
              },
              {
                "guard": {
                  "type": "preDecisionIs",
                  "params": {
                    "kind": "ask"
                  }
                },
                "target": "#toolCall.awaitingApproval",
                "actions": "recordPreDecision"
              },
              {
                "target": "#toolCall.settled",
                "actions": [
                  "recordPreDecision",
                  "settleDenial"
                ]
              }
            ],
            "onError": {
              "target": "#toolCall.settled",
              "actions": "settlePipelineError"
            }
          }
        }
      }
    },
    "awaitingApproval": {
      "on": {
        "ABORT": {
          "guard": "isLive",
          "target": "settled",
          "actions": [
            "markAborted",
            "startCancelGrace",
            "abortCall",
            "settleAbortedBeforeDispatch"
          ]
        }
      },
      "invoke": {
        "id": "approval",
        "src": "approval",
        "onDone": [
          {
            "guard": {
              "type": "approvalIs",
              "params": {
                "kind": "granted"
              }
            },
            "target": "guards"
          },
          {
            "guard": {
              "type": "approvalIs",
              "params": {
                "kind": "aborted"
              }
            },
            "target": "settled",
            "actions": [
              "markAborted",
              "settleAbortedBeforeDispatch"
            ]
          },
          {
            "target": "settled",
            "actions": "settleDenial"
          }
        ],
        "onError": {
          "target": "settled",
          "actions": "settlePipelineError"
        }
      }
    },
    "guards": {
      "on": {
        "ABORT": {
          "guard": "isLive",
          "target": "settled",
          "actions": [
            "markAborted",
            "startCancelGrace",
            "abortCall",
            "settleAbortedBeforeDispatch"
          ]
        }
      },
      "initial": "checking",
      "states": {
        "checking": {
          "always": [
            {
              "guard": {
                "type": "seamIsEmpty",
                "params": {
                  "seam": "guard"
                }
              },
              "target": "#toolCall.dispatching"
            },
            {
              "target": "deciding"
            }
          ]
        },
        "deciding": {
          "invoke": {
            "id": "guards",
            "src": "guards",
            "onDone": [
              {
                "guard": "guardDenied",
                "target": "#toolCall.settled",
                "actions": "settleDenial"
              },
              {
                "target": "#toolCall.dispatching"
              }
            ],
            "onError": {
              "target": "#toolCall.settled",
              "actions": "settlePipelineError"
            }
          }
        }
      }
    },
    "dispatching": {
      "invoke": {
        "id": "dispatch",
        "src": "dispatch",
        "onDone": {
          "target": "settled",
          "actions": "settleDispatched"
        },
        "onError": {
          "target": "settled",
          "actions": "settlePipelineError"
        }
      },
      "initial": "reporting",
      "states": {
        "reporting": {
          "always": [
            {
              "guard": "isBatched",
              "target": "running",
              "actions": [
                "markPrepared",
                {
                  "type": "reportToBatch",
                  "params": {
                    "report": "PREPARED"
                  }
                }
              ]
            },
            {
              "target": "running",
              "actions": "markPrepared"
            }
          ]
        },
        "running": {
          "on": {
            "ABORT": {
              "guard": "isLive",
              "target": "draining",
              "actions": [
                "markAborted",
                "startCancelGrace",
                "abortCall"
              ]
            }
          }
        },
        "draining": {
          "on": {
            "CANCEL_GRACE_OVER": {
              "target": "#toolCall.settled",
              "actions": [
                "markGraceOver",
                "settleDidNotStop"
              ]
            }
          }
        }
      }
    },
    "settled": {
      "initial": "reporting",
      "states": {
        "reporting": {
          "always": [
            {
              "guard": "isStandalone",
              "target": "#toolCall.postExecute"
            },
            {
              "guard": "wasPrepared",
              "target": "awaitingCommit",
              "actions": {
                "type": "reportToBatch",
                "params": {
                  "report": "SETTLED"
                }
              }
            },
            {
              "target": "awaitingCommit",
              "actions": [
                "markPrepared",
                {
                  "type": "reportToBatch",
                  "params": {
                    "report": "PREPARED"
                  }
                },
                {
                  "type": "reportToBatch",
                  "params": {
                    "report": "SETTLED"
                  }
                }
              ]
            }
          ]
        },
        "awaitingCommit": {
          "on": {
            "COMMIT": "#toolCall.postExecute"
          }
        }
      }
    },
    "postExecute": {
      "initial": "checking",
      "states": {
        "checking": {
          "always": [
            {
              "guard": "skipsPost",
              "target": "#toolCall.finalizing"
            },
            {
              "guard": {
                "type": "seamIsEmpty",
                "params": {
                  "seam": "tools/post-execute"
                }
              },
              "target": "#toolCall.finalizing",
              "actions": {
                "type": "emitDefaultDecided",
                "params": {
                  "seam": "tools/post-execute"
                }
              }
            },
            {
              "target": "reviewing"
            }
          ]
        },
        "reviewing": {
          "after": {
            "cancelGrace": {
              "guard": "graceIsOver",
              "target": "#toolCall.finalizing",
              "actions": "abandonReview"
            }
          },
          "on": {
            "CANCEL_GRACE_OVER": {
              "target": "#toolCall.finalizing",
              "actions": [
                "markGraceOver",
                "abandonReview"
              ]
            },
            "ABORT": {
              "guard": "isLive",
              "target": "#toolCall.finalizing",
              "actions": [
                "markAborted",
                "startCancelGrace",
                "abortCall",
                "abandonReview"
              ]
            }
          },
          "invoke": {
            "id": "postExecute",
            "src": "postExecute",
            "onDone": {
              "target": "#toolCall.finalizing",
              "actions": "applyReview"
            },
            "onError": {
              "target": "#toolCall.finalizing",
              "actions": "settleReviewFailure"
            }
          }
        }
      }
    },
    "finalizing": {
      "entry": "assembleResult",
      "initial": "checking",
      "states": {
        "checking": {
          "always": [
            {
              "guard": "hasNoFinalizer",
              "target": "#toolCall.notifying"
            },
            {
              "target": "running"
            }
          ]
        },
        "running": {
          "invoke": {
            "id": "finalize",
            "src": "finalize",
            "onDone": {
              "target": "#toolCall.notifying",
              "actions": "applyFinalized"
            },
            "onError": {
              "target": "#toolCall.notifying",
              "actions": "settleFinalizeFailure"
            }
          }
        }
      }
    },
    "notifying": {
      "entry": "notifyResult",
      "always": "done"
    },
    "done": {
      "type": "final",
      "entry": "closeCall"
    }
  }
});
