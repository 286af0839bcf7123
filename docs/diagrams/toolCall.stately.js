import { createMachine } from 'xstate';

const toolCallMachine = createMachine({
  "id": "toolCall",
  "entry": [
    "openCall",
    "watchAbort",
    "releaseOnStop"
  ],
  "on": {
    "ABORT": [
      {
        "guard": "abortSettlesBeforeDispatch",
        "target": ".settled",
        "actions": [
          "markAborted",
          "startCancelGrace",
          "abortCall",
          "settleAbortedBeforeDispatch"
        ]
      },
      {
        "guard": "isLive",
        "actions": [
          "markAborted",
          "startCancelGrace",
          "abortCall"
        ]
      }
    ],
    "CANCEL_GRACE_OVER": {
      "actions": "markGraceOver"
    },
    "RECORDED": {
      "actions": "markRecorded"
    }
  },
  "initial": "preparing",
  "states": {
    "preparing": {
      "initial": "detaching",
      "states": {
        "detaching": {
          "entry": {
            "type": "runPhase",
            "params": {
              "phase": "detach"
            }
          },
          "on": {
            "detach.done": [
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
                "guard": "standaloneSkipsToBody",
                "target": "#toolCall.dispatching.running",
                "actions": [
                  "recordDetach",
                  "sealCall",
                  {
                    "type": "emitDefaultDecided",
                    "params": {
                      "seam": "tools/pre-execute"
                    }
                  },
                  "markPrepared"
                ]
              },
              {
                "guard": "and(not(isResumed), foldsInput)",
                "target": "folding",
                "actions": "recordDetach"
              },
              {
                "target": "#toolCall.sealing",
                "actions": "recordDetach"
              }
            ],
            "detach.error": {
              "target": "#toolCall.sealing",
              "actions": "settlePipelineError"
            }
          }
        },
        "folding": {
          "entry": {
            "type": "startPhase",
            "params": {
              "phase": "prepare"
            }
          },
          "exit": "stopPhase",
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
            },
            "prepare.done": [
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
            "prepare.error": {
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
          "guard": {
            "type": "resumesAs",
            "params": {
              "as": "parked"
            }
          },
          "target": "parked"
        },
        {
          "guard": {
            "type": "resumesAs",
            "params": {
              "as": "held"
            }
          },
          "target": "held"
        },
        {
          "guard": {
            "type": "seamIsEmpty",
            "params": {
              "seam": "tools/pre-execute"
            }
          },
          "target": "guards",
          "actions": {
            "type": "emitDefaultDecided",
            "params": {
              "seam": "tools/pre-execute"
            }
          }
        },
        {
          "target": "preExecute"
        }
      ]
    },
    "preExecute": {
      "initial": "deciding",
      "states": {
        "deciding": {
          "entry": {
            "type": "startPhase",
            "params": {
              "phase": "preExecute"
            }
          },
          "exit": "stopPhase",
          "on": {
            "preExecute.done": [
              {
                "guard": "standaloneAllowedWithoutGuards",
                "target": "#toolCall.dispatching.running",
                "actions": [
                  "recordPreDecision",
                  "markPrepared"
                ]
              },
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
                "target": "#toolCall.notDispatched",
                "actions": [
                  "recordPreDecision",
                  "settleDenial"
                ]
              }
            ],
            "preExecute.error": {
              "target": "#toolCall.notDispatched",
              "actions": "settlePipelineError"
            }
          }
        }
      }
    },
    "awaitingApproval": {
      "entry": {
        "type": "startPhase",
        "params": {
          "phase": "approval"
        }
      },
      "exit": "stopPhase",
      "on": {
        "approval.done": [
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
                "kind": "deferred"
              }
            },
            "target": "parked.waiting",
            "actions": [
              "recordDeferral",
              "markPrepared",
              "reportParked"
            ]
          },
          {
            "guard": {
              "type": "approvalIs",
              "params": {
                "kind": "aborted"
              }
            },
            "target": "notDispatched",
            "actions": [
              "markAborted",
              "settleAbortedBeforeDispatch"
            ]
          },
          {
            "target": "notDispatched",
            "actions": "settleDenial"
          }
        ],
        "approval.error": {
          "target": "notDispatched",
          "actions": "settlePipelineError"
        }
      }
    },
    "parked": {
      "initial": "answered",
      "states": {
        "answered": {
          "always": [
            {
              "guard": {
                "type": "parkedAnswerIs",
                "params": {
                  "allows": false
                }
              },
              "target": "#toolCall.notDispatched",
              "actions": "settleParkedDenial"
            },
            {
              "guard": {
                "type": "parkedAnswerIs",
                "params": {
                  "allows": true
                }
              },
              "target": "#toolCall.guards",
              "actions": "clearResume"
            },
            {
              "target": "waiting",
              "actions": [
                "markPrepared",
                "reportParked"
              ]
            }
          ]
        },
        "waiting": {}
      }
    },
    "held": {
      "initial": "entering",
      "states": {
        "entering": {
          "always": [
            {
              "guard": {
                "type": "resumesAs",
                "params": {
                  "as": "held"
                }
              },
              "target": "#toolCall.preExecute",
              "actions": "clearResume"
            },
            {
              "target": "waiting",
              "actions": [
                "markPrepared",
                {
                  "type": "reportToBatch",
                  "params": {
                    "report": "HELD"
                  }
                }
              ]
            }
          ]
        },
        "waiting": {}
      }
    },
    "guards": {
      "initial": "checking",
      "states": {
        "checking": {
          "always": [
            {
              "guard": "dispatchHeld",
              "target": "#toolCall.held"
            },
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
          "entry": {
            "type": "runPhase",
            "params": {
              "phase": "guards"
            }
          },
          "on": {
            "guards.done": [
              {
                "guard": "guardDenied",
                "target": "#toolCall.notDispatched",
                "actions": "settleDenial"
              },
              {
                "target": "#toolCall.dispatching"
              }
            ],
            "guards.error": {
              "target": "#toolCall.notDispatched",
              "actions": "settlePipelineError"
            }
          }
        }
      }
    },
    "dispatching": {
      "exit": "stopPhase",
      "on": {
        "dispatch.done": [
          {
            "guard": "standaloneReviewIsEmpty",
            "target": "finalizing",
            "actions": [
              "settleDispatched",
              {
                "type": "emitDefaultDecided",
                "params": {
                  "seam": "tools/post-execute"
                }
              }
            ]
          },
          {
            "guard": "isStandalone",
            "target": "#toolCall.postExecute.reviewing",
            "actions": "settleDispatched"
          },
          {
            "target": "settled",
            "actions": "settleDispatched"
          }
        ],
        "dispatch.error": {
          "target": "settled",
          "actions": "settlePipelineError"
        }
      },
      "initial": "reporting",
      "states": {
        "reporting": {
          "always": [
            {
              "guard": "awaitsRecord",
              "target": "recording",
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
        "recording": {
          "on": {
            "RECORDED": {
              "target": "running",
              "actions": "markRecorded"
            }
          }
        },
        "running": {
          "entry": {
            "type": "startPhase",
            "params": {
              "phase": "dispatch"
            }
          },
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
    "notDispatched": {
      "always": "settled"
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
              "guard": "graceIsOver",
              "target": "reviewing",
              "actions": "startCancelGrace"
            },
            {
              "target": "reviewing"
            }
          ]
        },
        "reviewing": {
          "entry": {
            "type": "startPhase",
            "params": {
              "phase": "postExecute"
            }
          },
          "exit": "stopPhase",
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
            },
            "postExecute.done": {
              "target": "#toolCall.finalizing",
              "actions": "applyReview"
            },
            "postExecute.error": {
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
          "entry": {
            "type": "runPhase",
            "params": {
              "phase": "finalize"
            }
          },
          "on": {
            "finalize.done": {
              "target": "#toolCall.notifying",
              "actions": "applyFinalized"
            },
            "finalize.error": {
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
