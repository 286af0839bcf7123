import { createMachine } from 'xstate';

const turnMachine = createMachine({
  "id": "turn",
  "entry": [
    "openScope",
    "releaseOnStop"
  ],
  "initial": "entering",
  "states": {
    "entering": {
      "always": [
        {
          "guard": "resumes",
          "target": "#turn.open.step.suspended.resuming"
        },
        "opening"
      ]
    },
    "opening": {
      "entry": "appendTurnStart",
      "on": {
        "TURN_OPENED": "open",
        "INTERNAL_ERROR": [
          {
            "guard": {
              "type": "mayRewrite",
              "params": {
                "write": "turn/start"
              }
            },
            "target": "opening",
            "reenter": true,
            "actions": [
              {
                "type": "markRewritten",
                "params": {
                  "write": "turn/start"
                }
              }
            ]
          },
          {
            "target": "done",
            "actions": [
              {
                "type": "recordFailure"
              },
              "notifyClosed",
              {
                "type": "reportFailure",
                "params": {
                  "origin": "turn"
                }
              },
              "settleReason"
            ]
          }
        ]
      }
    },
    "open": {
      "always": {
        "guard": "hasFailure",
        "target": "#turn.closing"
      },
      "on": {
        "STEER": {
          "actions": {
            "type": "pushSteering"
          }
        },
        "INJECT": {
          "actions": {
            "type": "appendInjection"
          }
        },
        "CANCEL": {
          "target": "#turn.closing",
          "actions": [
            {
              "type": "recordCancel"
            },
            "abortTurn"
          ]
        }
      },
      "initial": "promptSubmit",
      "states": {
        "promptSubmit": {
          "on": {
            "CANCEL": {
              "target": "#turn.closing",
              "actions": [
                {
                  "type": "recordCancel"
                },
                {
                  "type": "discardUnrecordedPrompt"
                },
                "abortTurn"
              ]
            }
          },
          "initial": "check",
          "states": {
            "check": {
              "always": [
                {
                  "guard": {
                    "type": "seamIsEmpty",
                    "params": {
                      "seam": "agent/prompt-submit"
                    }
                  },
                  "target": "#turn.open.step",
                  "actions": [
                    {
                      "type": "emitDefaultDecided"
                    },
                    {
                      "type": "recordPrompt"
                    }
                  ]
                },
                "running"
              ]
            },
            "running": {
              "invoke": {
                "id": "promptSubmit",
                "src": "promptSubmit",
                "onDone": [
                  {
                    "guard": "promptBlocked",
                    "target": "#turn.closing",
                    "actions": [
                      {
                        "type": "recordBlocked"
                      },
                      {
                        "type": "recordRejected"
                      }
                    ]
                  },
                  {
                    "target": "#turn.open.step",
                    "actions": {
                      "type": "recordPrompt"
                    }
                  }
                ],
                "onError": {
                  "target": "#turn.closing",
                  "actions": [
                    {
                      "type": "recordFailure"
                    },
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "agent/prompt-submit"
                      }
                    }
                  ]
                }
              },
              "always": {
                "guard": "hasFailure"
              }
            }
          }
        },
        "step": {
          "entry": "beginStep",
          "initial": "drainSteering",
          "states": {
            "drainSteering": {
              "entry": [
                "recordSteering",
                "reportSteeringEnded",
                "clearSteering"
              ],
              "always": {
                "guard": "noFailure",
                "target": "preStep"
              }
            },
            "preStep": {
              "initial": "check",
              "states": {
                "check": {
                  "always": [
                    {
                      "guard": {
                        "type": "seamIsEmpty",
                        "params": {
                          "seam": "agent/pre-step"
                        }
                      },
                      "target": "#turn.open.step.inFlight"
                    },
                    "running"
                  ]
                },
                "running": {
                  "invoke": {
                    "id": "preStep",
                    "src": "preStep",
                    "onDone": "#turn.open.step.inFlight",
                    "onError": {
                      "actions": [
                        {
                          "type": "recordFailure"
                        },
                        {
                          "type": "reportFailure",
                          "params": {
                            "origin": "agent/pre-step"
                          }
                        }
                      ]
                    }
                  }
                }
              }
            },
            "inFlight": {
              "on": {
                "INJECT": {
                  "actions": {
                    "type": "pushStepFifo"
                  }
                }
              },
              "initial": "requesting",
              "states": {
                "requesting": {
                  "entry": [
                    "openStep",
                    "appendStepStart",
                    "startModelRequest"
                  ],
                  "exit": "stopModelRequest",
                  "on": {
                    "model.done": {
                      "target": "answered",
                      "actions": [
                        {
                          "type": "acceptAnswer"
                        },
                        {
                          "type": "recordAnswer"
                        }
                      ]
                    },
                    "model.error": {
                      "target": "#turn.open.requestError",
                      "actions": [
                        {
                          "type": "recordRequestFailure"
                        },
                        "appendStepFifo",
                        "appendStepEnd",
                        "closeStep"
                      ]
                    }
                  }
                },
                "answered": {
                  "always": [
                    {
                      "guard": "and(noFailure, answerHasToolCalls)",
                      "target": "tools"
                    },
                    {
                      "guard": "noFailure",
                      "target": "#turn.open.step.postBatchSteering",
                      "actions": [
                        "appendStepFifo",
                        "clearStepFifo"
                      ]
                    }
                  ]
                },
                "tools": {
                  "initial": "running",
                  "exit": "clearResume",
                  "invoke": {
                    "id": "toolBatch",
                    "src": "toolBatch",
                    "onDone": [
                      {
                        "guard": "batchFailed",
                        "actions": [
                          "repairCalls",
                          {
                            "type": "recordFailure"
                          },
                          {
                            "type": "reportFailure",
                            "params": {
                              "origin": "toolBatch"
                            }
                          }
                        ]
                      },
                      {
                        "guard": "batchSuspended",
                        "target": "#turn.open.step.suspended",
                        "actions": {
                          "type": "appendTurnSuspended"
                        }
                      },
                      {
                        "target": "#turn.open.step.postBatchSteering",
                        "actions": [
                          "appendStepFifo",
                          "clearStepFifo"
                        ]
                      }
                    ],
                    "onError": {
                      "actions": [
                        "repairCalls",
                        {
                          "type": "recordFailure"
                        },
                        {
                          "type": "reportFailure",
                          "params": {
                            "origin": "toolBatch"
                          }
                        }
                      ]
                    }
                  },
                  "on": {
                    "CALL_COMMITTED": {
                      "actions": {
                        "type": "pushStepFifo"
                      }
                    }
                  },
                  "states": {
                    "running": {
                      "on": {
                        "CANCEL": {
                          "target": "draining",
                          "actions": [
                            {
                              "type": "recordCancel"
                            },
                            "abortBatch",
                            "abortTurn"
                          ]
                        }
                      }
                    },
                    "draining": {
                      "on": {
                        "CANCEL": {
                          "actions": [
                            {
                              "type": "recordCancel"
                            },
                            "abortTurn"
                          ]
                        }
                      }
                    }
                  }
                }
              }
            },
            "suspended": {
              "initial": "recording",
              "states": {
                "recording": {
                  "always": [
                    {
                      "guard": "hasFailure",
                      "target": "#turn.closing",
                      "actions": "repairCalls"
                    },
                    "waiting"
                  ]
                },
                "waiting": {
                  "entry": "notifySuspended",
                  "on": {
                    "INJECT": {
                      "actions": {
                        "type": "appendHeldContext"
                      }
                    },
                    "CANCEL": {}
                  }
                },
                "resuming": {
                  "always": [
                    {
                      "guard": "resumeCancels",
                      "target": "#turn.open.step.inFlight.tools",
                      "actions": "takeResume"
                    },
                    {
                      "target": "recordingResume",
                      "actions": "appendTurnResumed"
                    }
                  ]
                },
                "recordingResume": {
                  "always": [
                    {
                      "guard": "hasFailure",
                      "target": "waiting",
                      "actions": "forgetRefusedResume"
                    },
                    {
                      "target": "#turn.open.step.inFlight.tools",
                      "actions": "takeResume"
                    }
                  ]
                }
              }
            },
            "postBatchSteering": {
              "always": [
                {
                  "guard": "and(noFailure, isCancelled)",
                  "target": "abortedPostStep"
                },
                {
                  "guard": "noFailure",
                  "target": "postStep",
                  "actions": [
                    "markSteered",
                    "recordSteering",
                    "reportSteeringEnded",
                    "clearSteering"
                  ]
                }
              ]
            },
            "postStep": {
              "initial": "check",
              "states": {
                "check": {
                  "always": [
                    {
                      "guard": "and(noFailure, seamIsEmpty(seam=agent/post-step))",
                      "target": "#turn.open.step.continuation",
                      "actions": [
                        "appendStepEnd",
                        "closeStep"
                      ]
                    },
                    {
                      "guard": "noFailure",
                      "target": "running"
                    }
                  ]
                },
                "running": {
                  "invoke": {
                    "id": "postStep",
                    "src": "postStep",
                    "onDone": {
                      "target": "#turn.open.step.continuation",
                      "actions": [
                        "appendStepEnd",
                        "closeStep"
                      ]
                    },
                    "onError": {
                      "actions": [
                        {
                          "type": "recordFailure"
                        },
                        {
                          "type": "reportFailure",
                          "params": {
                            "origin": "agent/post-step"
                          }
                        }
                      ]
                    }
                  }
                }
              }
            },
            "abortedPostStep": {
              "initial": "check",
              "onDone": "#turn.closing",
              "states": {
                "check": {
                  "always": [
                    {
                      "guard": {
                        "type": "seamIsEmpty",
                        "params": {
                          "seam": "agent/post-step"
                        }
                      },
                      "target": "over"
                    },
                    "running"
                  ]
                },
                "running": {
                  "invoke": {
                    "id": "abortedPostStep",
                    "src": "postStep",
                    "onDone": "over",
                    "onError": "over"
                  },
                  "after": {
                    "cancelGrace": "over"
                  },
                  "always": {
                    "guard": "hasFailure"
                  }
                },
                "over": {
                  "type": "final"
                }
              }
            },
            "continuation": {
              "initial": "check",
              "states": {
                "check": {
                  "always": [
                    {
                      "guard": "and(noFailure, seamIsEmpty(seam=agent/turn-continuation))",
                      "target": "#turn.open.step.turnStop",
                      "actions": [
                        {
                          "type": "emitDefaultDecided"
                        },
                        {
                          "type": "applyContinuation"
                        }
                      ]
                    },
                    {
                      "guard": "noFailure",
                      "target": "running"
                    }
                  ]
                },
                "running": {
                  "invoke": {
                    "id": "continuation",
                    "src": "continuation",
                    "onDone": {
                      "target": "#turn.open.step.turnStop",
                      "actions": [
                        {
                          "type": "applyContinuation"
                        },
                        "announceContinueReason",
                        "reportSteeringHeld"
                      ]
                    },
                    "onError": {
                      "actions": [
                        {
                          "type": "recordFailure"
                        },
                        {
                          "type": "reportFailure",
                          "params": {
                            "origin": "agent/turn-continuation"
                          }
                        }
                      ]
                    }
                  }
                }
              }
            },
            "turnStop": {
              "initial": "check",
              "states": {
                "check": {
                  "always": [
                    {
                      "guard": {
                        "type": "seamIsEmpty",
                        "params": {
                          "seam": "agent/turn-stop"
                        }
                      },
                      "target": "#turn.open.step.deciding"
                    },
                    "running"
                  ]
                },
                "running": {
                  "invoke": {
                    "id": "turnStop",
                    "src": "turnStop",
                    "onDone": [
                      {
                        "guard": "stopReturned",
                        "target": "#turn.open.step.deciding",
                        "actions": [
                          {
                            "type": "recordStop"
                          },
                          "discardSteering",
                          "reportSteeringEnded",
                          "clearSteering"
                        ]
                      },
                      "#turn.open.step.deciding"
                    ],
                    "onError": {
                      "actions": [
                        {
                          "type": "recordFailure"
                        },
                        {
                          "type": "reportFailure",
                          "params": {
                            "origin": "agent/turn-stop"
                          }
                        }
                      ]
                    }
                  }
                }
              }
            },
            "deciding": {
              "always": [
                {
                  "guard": "stepCapReached",
                  "actions": [
                    "recordMaxSteps",
                    "discardContinueReason",
                    "reportContinueReasonEnded",
                    "dropContinueReason"
                  ]
                },
                {
                  "guard": "shouldContinue",
                  "target": "#turn.open.step",
                  "reenter": true
                },
                "#turn.closing"
              ]
            }
          }
        },
        "requestError": {
          "initial": "check",
          "states": {
            "check": {
              "always": [
                {
                  "guard": "and(noFailure, seamIsEmpty(seam=agent/request-error))",
                  "actions": [
                    {
                      "type": "emitDefaultDecided",
                      "params": {
                        "seam": "agent/request-error",
                        "decision": {
                          "action": "fail"
                        }
                      }
                    },
                    "failRequest",
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "model"
                      }
                    }
                  ]
                },
                {
                  "guard": "noFailure",
                  "target": "running"
                }
              ]
            },
            "running": {
              "invoke": {
                "id": "requestError",
                "src": "requestError",
                "onDone": [
                  {
                    "guard": "retryAllowed",
                    "target": "#turn.open.step"
                  },
                  {
                    "actions": [
                      "failRequest",
                      {
                        "type": "reportFailure",
                        "params": {
                          "origin": "model"
                        }
                      }
                    ]
                  }
                ],
                "onError": {
                  "actions": [
                    {
                      "type": "reportListenerFailure"
                    },
                    "failRequest",
                    {
                      "type": "reportFailure",
                      "params": {
                        "origin": "model"
                      }
                    }
                  ]
                }
              }
            }
          }
        }
      }
    },
    "closing": {
      "initial": "closingStep",
      "states": {
        "closingStep": {
          "entry": [
            "dropRefusal",
            "closeOpenStep"
          ],
          "always": [
            {
              "guard": {
                "type": "rewriteOwed",
                "params": {
                  "write": "step/end"
                }
              },
              "target": "closingStep",
              "reenter": true,
              "actions": {
                "type": "markRewritten",
                "params": {
                  "write": "step/end"
                }
              }
            },
            {
              "target": "ending",
              "actions": [
                "dropRefusal",
                "closeStep",
                "settleReason"
              ]
            }
          ]
        },
        "ending": {
          "entry": [
            "dropRefusal",
            "appendTurnEnd"
          ],
          "always": [
            {
              "guard": {
                "type": "rewriteOwed",
                "params": {
                  "write": "turn/end"
                }
              },
              "target": "ending",
              "reenter": true,
              "actions": {
                "type": "markRewritten",
                "params": {
                  "write": "turn/end"
                }
              }
            },
            {
              "target": "#turn.flushing",
              "actions": "notifyClosed"
            }
          ]
        }
      }
    },
    "flushing": {
      "entry": "startLogFlush",
      "on": {
        "flush.done": "done",
        "flush.error": {
          "target": "done",
          "actions": {
            "type": "reportFlushFailure"
          }
        },
        "STEER": {
          "actions": {
            "type": "pushSteering"
          }
        },
        "INJECT": {
          "actions": {
            "type": "holdInjection"
          }
        },
        "CANCEL": {
          "actions": {
            "type": "dropPendingSteering"
          }
        }
      }
    },
    "done": {
      "type": "final",
      "entry": "closeOwnScope"
    }
  }
});
